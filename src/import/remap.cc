#include "import/remap.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "tracesql/error.h"

namespace tracesql {

void RemapToImportIds(Trace& trace, const Interners& from, Interners& to) {
  // Old id -> new id, each with 0 -> 0 (no value).
  std::vector<uint32_t> str(from.strings.size(), 0);
  for (uint32_t i = 1; i < str.size(); ++i) str[i] = to.strings.Intern(from.strings.Get(i));
  const auto& sigs = from.shapes.sigs();
  std::vector<uint32_t> shape(sigs.size() + 1, 0);
  for (size_t i = 0; i < sigs.size(); ++i) shape[i + 1] = to.shapes.Intern(sigs[i]);
  const auto& inputs = from.input_shapes.shapes();
  std::vector<uint32_t> input(inputs.size() + 1, 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputShapes::Shape& s = inputs[i];
    input[i + 1] = to.input_shapes.Intern(s.has_dims, s.dims, s.has_types, s.types);
  }
  const auto& nodes = from.stacks.nodes();
  std::vector<uint32_t> stack(nodes.size() + 1, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {  // a parent is interned before its children
    const StackInterner::Node& n = nodes[i];
    stack[i + 1] = to.stacks.Intern(stack[n.parent], str[n.name], str[n.cat], n.depth);
  }

  auto id_value = [&](IdValue& v) {
    if (v.is_text) v.text = str[v.text];
  };
  constexpr uint32_t kShapeBits = (1u << kInputShape) - 1;
  for (EventRec& e : trace.events) {
    e.name = str[e.name];
    e.cat = str[e.cat];
    e.ph = str[e.ph];
    e.shape = shape[e.shape];
    if (e.mask & (1u << kInputShape)) {
      // The input shape id: the last promoted value of the event (see Trace::PromotedAt).
      const auto k = static_cast<uint32_t>(__builtin_popcount(static_cast<unsigned>(e.mask) & kShapeBits));
      uint32_t* v = trace.pool.data() + e.promo + (e.wide ? 2 * k : k);
      const uint32_t id = input[*v];
      if (!e.wide && id > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
        Errorf("{}: more than 2^31 distinct input shapes", trace.path);
      }
      *v = id;
    }
  }
  for (uint32_t& s : trace.stack) s = stack[s];
  for (EndArgs& a : trace.end_args) a.shape = shape[a.shape];
  for (ThreadRec& t : trace.threads) {
    id_value(t.pid);
    id_value(t.tid);
    t.name = str[t.name];
  }
  for (ProcessRec& p : trace.processes) {
    id_value(p.pid);
    p.name = str[p.name];
    p.labels = str[p.labels];
  }
  for (FlowPoint& p : trace.flow_points) {
    p.cat = str[p.cat];
    p.name = str[p.name];
    id_value(p.id);
  }
  // Finish() emits the flow rows group by group, the groups in (cat, id) order of interned ids,
  // each group's rows in an order of their own (times, file order): a stable sort by the new
  // (cat, id) gives the order building with `to` would have given.
  auto group_less = [&](const FlowRow& x, const FlowRow& y) {
    const FlowPoint& a = trace.AnyPoint(x);
    const FlowPoint& b = trace.AnyPoint(y);
    if (a.cat != b.cat) return a.cat < b.cat;
    if (a.id.is_text != b.id.is_text) return a.id.is_text < b.id.is_text;
    return a.id.is_text ? a.id.text < b.id.text : a.id.i < b.id.i;
  };
  if (!std::is_sorted(trace.flow_rows.begin(), trace.flow_rows.end(), group_less)) {
    std::stable_sort(trace.flow_rows.begin(), trace.flow_rows.end(), group_less);
  }
}

}  // namespace tracesql
