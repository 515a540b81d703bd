// A trace built with interners of its own gets the import's ids. A parallel import builds several
// traces at once, each with its own interners (their ids depend on the order the traces are
// written in); the writer takes the traces in command-line order and moves each to the import's
// ids just before writing it.
#ifndef SRC_IMPORT_REMAP_H_
#define SRC_IMPORT_REMAP_H_

#include "import/trace.h"

namespace tracesql {

// Interns everything `from` holds into `to`, in `from`'s id order, and rewrites the ids in the
// finished trace (Finish() has run; nothing written yet): events, promoted input shapes, call
// paths, threads, processes, flow points, E-event args. Interning in id order is interning in the
// order the trace first met each value, so `to` and the trace end up exactly as if the trace had
// been built with `to`; the flow rows, which Finish() orders by interned ids, are put back in that
// order. The trace keeps referring to `from`'s objects (the caller moves `to` into them to write).
void RemapToImportIds(Trace& trace, const Interners& from, Interners& to);

}  // namespace tracesql

#endif  // SRC_IMPORT_REMAP_H_
