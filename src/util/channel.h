// Channel<T>: a bounded queue between threads. Push blocks while it is full, Pop while it is
// empty; Close() ends the stream (Pop drains what is left, then returns false); Cancel() makes both
// sides give up at once (Push and Pop return false).
#ifndef SRC_UTIL_CHANNEL_H_
#define SRC_UTIL_CHANNEL_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

namespace tracesql {

template <class T>
class Channel {
 public:
  explicit Channel(size_t capacity) : capacity_(capacity) {}
  bool Push(T&& v) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return q_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    q_.push_back(std::move(v));
    cv_.notify_all();
    return true;
  }
  // With `stop`, it is asked every 50 ms while waiting and Pop returns false once it says true
  // (e.g. Ctrl-C was pressed).
  bool Pop(T& v, bool (*stop)() = nullptr) {
    std::unique_lock<std::mutex> lock(mu_);
    auto ready = [&] { return !q_.empty() || closed_ || cancelled_; };
    if (stop) {
      while (!cv_.wait_for(lock, std::chrono::milliseconds(50), ready)) {
        if (stop()) return false;
      }
    } else {
      cv_.wait(lock, ready);
    }
    if (cancelled_ || q_.empty()) return false;
    v = std::move(q_.front());
    q_.pop_front();
    cv_.notify_all();
    return true;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  size_t capacity_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> q_;
  bool closed_ = false, cancelled_ = false;
};

}  // namespace tracesql

#endif  // SRC_UTIL_CHANNEL_H_
