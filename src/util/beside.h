// Beside: work run on a thread of its own beside the caller's.
#ifndef SRC_UTIL_BESIDE_H_
#define SRC_UTIL_BESIDE_H_

#include <exception>
#include <functional>
#include <thread>
#include <utility>

namespace tracesql {

// Runs work on a thread of its own beside the caller's; Join() waits for it and rethrows its
// error. Joined on destruction too, so that an error on the caller's thread unwinds after it.
class Beside {
 public:
  explicit Beside(std::function<void()> work)
      : thread_([this, work = std::move(work)] {
          try {
            work();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~Beside() {
    if (thread_.joinable()) thread_.join();
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  void Join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;  // last: started once error_ exists
};

}  // namespace tracesql

#endif  // SRC_UTIL_BESIDE_H_
