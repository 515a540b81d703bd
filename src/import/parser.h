// The event parser: batches of whole events (splitter.h) parsed with simdjson On-Demand on worker
// threads into compact records (text in a per-batch arena; args as a JSON array of values plus a
// key signature, promoted args pulled out), then handed to the builder in file order. Also the
// header values of the root object (ReadHeader).
#ifndef SRC_IMPORT_PARSER_H_
#define SRC_IMPORT_PARSER_H_

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "import/builder.h"
#include "import/splitter.h"
#include "util/channel.h"

namespace tracesql {

// Batches in file order (seq) from the reader thread to the parse workers.
struct SeqBatch {
  uint64_t seq = 0;
  Batch batch;
};
using BatchQueue = Channel<SeqBatch>;

struct ParsedBatch;

// Parses the batches of `in` on `workers` threads; AddNext() adds them to the builder in file
// order, so ids, interning order and the first malformed event reported are what one thread would
// give. About kSlots parsed batches exist at once (one more when the batch AddNext() waits for
// would otherwise wait behind later ones), so the workers stay a few batches ahead of the builder.
class ParallelParser {
 public:
  // path: the trace (for errors; compressed: its offsets are of the decompressed JSON).
  // interrupted: once it returns true, the workers and AddNext() stop waiting.
  ParallelParser(BatchQueue& in, const std::string& path, bool compressed, int workers, bool (*interrupted)());
  ~ParallelParser();
  ParallelParser(const ParallelParser&) = delete;
  ParallelParser& operator=(const ParallelParser&) = delete;

  // Adds the next parsed batch in file order to the builder: its events (interning their text),
  // then its counts, then raises its error (a malformed event), if any. False once every batch was
  // added, or the workers stopped, or `interrupted` returns true (the caller checks).
  bool AddNext(TraceBuilder& builder);
  // Stops and joins the workers (the queue must be closed or cancelled first, or they finish it).
  void Stop();

 private:
  static constexpr size_t kSlots = 4;
  // The next parsed batch in file order, or nullptr (see AddNext). Give it back with Recycle().
  std::unique_ptr<ParsedBatch> Next();
  void Recycle(std::unique_ptr<ParsedBatch> b);
  void Work(const std::string& path, bool compressed);

  BatchQueue& in_;
  bool (*interrupted_)();
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, std::unique_ptr<ParsedBatch>> ready_;
  std::vector<std::unique_ptr<ParsedBatch>> free_;
  size_t slots_ = 0;
  uint64_t next_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

// Threads that parse batches (ParallelParser's workers) on this machine.
int ParseWorkers();

// The root object's values other than traceEvents (the splitter's header): validated and
// minified into traces.metadata, and the few keys tracesql reads (baseTimeNanoseconds,
// distributedInfo, deviceProperties) decoded. Counts go to stats.
HeaderInfo ReadHeader(const SplitResult& split, const std::string& path, Stats& stats);

}  // namespace tracesql

#endif  // SRC_IMPORT_PARSER_H_
