// Where the shell's input lines come from: a terminal (libedit line editing, history, completion) or a
// file / pipe (no prompt, no history).
#ifndef TRACESQL_SHELL_LINE_READER_H_
#define TRACESQL_SHELL_LINE_READER_H_

#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tracesql::shell {

// Set by the shell's SIGINT handler; a reader that sees it set reports kInterrupted.
extern volatile std::sig_atomic_t g_sigint;

class LineReader {
 public:
  enum class Result { kLine, kEof, kInterrupted };
  virtual ~LineReader() = default;
  // Reads one line into *line, without its line ending. prompt is shown by terminal readers only.
  virtual Result Read(const std::string& prompt, std::string* line) = 0;
  // Records a complete statement or dot-command in the history (terminal readers only).
  virtual void AddHistory(const std::string& /*entry*/) {}
};

// Candidates for completing the word that ends at the end of line_before_cursor; *word_start receives
// the byte offset where that word begins.
using Completer = std::function<std::vector<std::string>(std::string_view line_before_cursor, size_t* word_start)>;

// Lines of an open file (not closed by the reader).
std::unique_ptr<LineReader> MakeFileReader(std::FILE* in);

// The terminal on stdin/stdout: libedit when built with it (emacs keys, history saved to history_path
// after every entry, Tab calls completer), else plain prompts. history_path may be empty (no history).
std::unique_ptr<LineReader> MakeTerminalReader(const std::string& history_path, Completer completer);

// Where history is kept: $TRACESQL_HISTORY, else ${XDG_STATE_HOME:-$HOME/.local/state}/tracesql/history.
// Empty when neither HOME nor XDG_STATE_HOME is set.
std::string HistoryPath();

}  // namespace tracesql::shell

#endif  // TRACESQL_SHELL_LINE_READER_H_
