#include "shell/line_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#ifdef TRACESQL_HAVE_LIBEDIT
#include <histedit.h>
#endif

#include "tracesql/render.h"
#include "tracesql/user_dirs.h"

namespace tracesql::shell {

volatile std::sig_atomic_t g_sigint = 0;

namespace {

class FileReader : public LineReader {
 public:
  explicit FileReader(std::FILE* in) : in_(in) {}
  Result Read(const std::string& /*prompt*/, std::string* line) override {
    line->clear();
    int c;
    bool any = false;
    while ((c = std::fgetc(in_)) != EOF) {
      any = true;
      if (c == '\n') break;
      line->push_back(static_cast<char>(c));
    }
    if (!any) return Result::kEof;
    if (!line->empty() && line->back() == '\r') line->pop_back();
    return Result::kLine;
  }

 private:
  std::FILE* in_;
};

// A terminal without libedit: prompts, no editing.
class PlainTerminalReader : public LineReader {
 public:
  Result Read(const std::string& prompt, std::string* line) override {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
    line->clear();
    g_sigint = 0;
    for (;;) {
      int c = std::fgetc(stdin);
      if (g_sigint) {
        g_sigint = 0;
        std::clearerr(stdin);
        std::fputc('\n', stdout);
        return Result::kInterrupted;
      }
      if (c == EOF) {
        if (std::ferror(stdin) && errno == EINTR) {
          std::clearerr(stdin);
          continue;
        }
        return line->empty() ? Result::kEof : Result::kLine;
      }
      if (c == '\n') return Result::kLine;
      line->push_back(static_cast<char>(c));
    }
  }
};

#ifdef TRACESQL_HAVE_LIBEDIT

bool EqualsIgnoreCase(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

class EditLineReader : public LineReader {
 public:
  EditLineReader(std::string history_path, Completer completer)
      : history_path_(std::move(history_path)), completer_(std::move(completer)) {
    el_ = el_init("tracesql", stdin, stdout, stderr);
    hist_ = history_init();
    history(hist_, &ev_, H_SETSIZE, 2000);
    history(hist_, &ev_, H_SETUNIQUE, 1);
    if (!history_path_.empty()) history(hist_, &ev_, H_LOAD, history_path_.c_str());
    el_set(el_, EL_CLIENTDATA, this);
    el_set(el_, EL_EDITOR, "emacs");
    el_set(el_, EL_SIGNAL, 0);  // the shell owns SIGINT: it interrupts the query or the line
    el_set(el_, EL_PROMPT, &EditLineReader::PromptFn);
    el_set(el_, EL_HIST, history, hist_);
    el_set(el_, EL_ADDFN, "tracesql-complete", "Complete a name", &EditLineReader::CompleteFn);
    el_set(el_, EL_BIND, "^I", "tracesql-complete", nullptr);
    el_source(el_, nullptr);  // the user's ~/.editrc, if any
  }
  ~EditLineReader() override {
    el_end(el_);
    history_end(hist_);
  }
  EditLineReader(const EditLineReader&) = delete;
  EditLineReader& operator=(const EditLineReader&) = delete;

  Result Read(const std::string& prompt, std::string* line) override {
    prompt_ = prompt;
    g_sigint = 0;
    el_resize(el_);
    int count = 0;
    errno = 0;
    const char* got = el_gets(el_, &count);
    if (g_sigint) {
      g_sigint = 0;
      std::fputs("^C\n", stdout);
      std::fflush(stdout);
      return Result::kInterrupted;
    }
    if (!got || count <= 0) {
      if (count < 0 && errno == EINTR) return Result::kInterrupted;
      std::fputc('\n', stdout);
      return Result::kEof;
    }
    line->assign(got, static_cast<size_t>(count));
    while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
    return Result::kLine;
  }

  void AddHistory(const std::string& entry) override {
    history(hist_, &ev_, H_ENTER, entry.c_str());
    if (history_path_.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(history_path_).parent_path(), ec);
    history(hist_, &ev_, H_SAVE, history_path_.c_str());
    chmod(history_path_.c_str(), 0600);  // statements can hold anything the user typed
  }

 private:
  static EditLineReader* Self(EditLine* el) {
    void* p = nullptr;
    el_get(el, EL_CLIENTDATA, &p);
    return static_cast<EditLineReader*>(p);
  }
  static char* PromptFn(EditLine* el) { return Self(el)->prompt_.data(); }

  static unsigned char CompleteFn(EditLine* el, int /*ch*/) {
    EditLineReader* self = Self(el);
    const LineInfo* li = el_line(el);
    std::string_view before(li->buffer, static_cast<size_t>(li->cursor - li->buffer));
    size_t word_start = before.size();
    std::vector<std::string> cands = self->completer_ ? self->completer_(before, &word_start) : std::vector<std::string>{};
    if (cands.empty()) return CC_ERROR;
    std::string_view typed = before.substr(word_start);
    // Longest common prefix, compared without case (SQL is case-insensitive); spelled as the first.
    size_t common = cands[0].size();
    for (const auto& c : cands) {
      size_t k = 0;
      while (k < common && k < c.size() && EqualsIgnoreCase(c[k], cands[0][k])) ++k;
      common = k;
    }
    std::string insert = cands[0].substr(0, common);
    if (cands.size() == 1) insert += ' ';
    if (insert.size() > typed.size() || (cands.size() == 1)) {
      el_deletestr(el, static_cast<int>(typed.size()));
      el_insertstr(el, insert.c_str());
      return CC_REFRESH;
    }
    // Ambiguous and nothing more to add: list the candidates under the line.
    size_t width = 0;
    for (const auto& c : cands) width = std::max(width, DisplayWidth(c));
    width += 2;
    int cols = 80;
    el_get(el, EL_GETTC, "co", &cols);
    size_t per_line = std::max<size_t>(1, static_cast<size_t>(std::max(cols, 20)) / width);
    std::fputc('\n', stdout);
    for (size_t i = 0; i < cands.size(); ++i) {
      std::string cell = cands[i];
      if ((i + 1) % per_line != 0 && i + 1 != cands.size()) cell.append(width - DisplayWidth(cands[i]), ' ');
      std::fputs(cell.c_str(), stdout);
      if ((i + 1) % per_line == 0 || i + 1 == cands.size()) std::fputc('\n', stdout);
    }
    std::fflush(stdout);
    return CC_REDISPLAY;
  }

  EditLine* el_ = nullptr;
  History* hist_ = nullptr;
  HistEvent ev_{};
  std::string prompt_;
  std::string history_path_;
  Completer completer_;
};

#endif  // TRACESQL_HAVE_LIBEDIT

}  // namespace

std::unique_ptr<LineReader> MakeFileReader(std::FILE* in) { return std::make_unique<FileReader>(in); }

std::unique_ptr<LineReader> MakeTerminalReader(const std::string& history_path, Completer completer) {
#ifdef TRACESQL_HAVE_LIBEDIT
  return std::make_unique<EditLineReader>(history_path, std::move(completer));
#else
  (void)history_path;
  (void)completer;
  return std::make_unique<PlainTerminalReader>();
#endif
}

std::string HistoryPath() {
  if (const char* p = std::getenv("TRACESQL_HISTORY"); p && *p) return p;
  std::string state = UserDir("XDG_STATE_HOME", ".local/state");
  return state.empty() ? state : (std::filesystem::path(state) / "history").string();
}

}  // namespace tracesql::shell
