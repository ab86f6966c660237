// Device groups (vyre/group.hpp; docs/MULTI_GPU.md): instances of one backend, one per device,
// driven together.
//
//   group = vyre.Group([registry.create("cuda", device_ordinal=d) for d in (0, 1)])
//   out = group.run(program, a=x, placements={"a": "split", "out": "gather"})   # sharded, gathered
//   bufs = group.alloc(x.nbytes, np.float32)                                   # one per member
//   shards = group.run_resident(program, a=x, out=bufs)                         # left per device
//   group.all_reduce(bufs, bufs, np.float32, "sum_rank_order")                  # collectives (NCCL)
#include <cstring>

#include <vyre/error.hpp>
#include <vyre/group.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

struct PyGroup {
  host::Group group;
};

host::Placement placement_of(const std::string& name, const std::string& how) {
  const std::size_t colon = how.find(':');
  const std::string kind = how.substr(0, colon);
  std::uint64_t k = 1;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      k = std::stoull(how.substr(colon + 1), &used);
      if (used != how.size() - colon - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      invalid_argument("placement of '" + name + "': '" + how + "' has no whole number after ':'",
                       "write split:K or gather:K with K elements per invocation");
    }
  }
  if (kind == "replicate" && colon == std::string::npos) return host::Placement::replicate();
  if (kind == "split") return host::Placement::split(k);
  if (kind == "gather") return host::Placement::gather(k);
  if (kind == "sum" && colon == std::string::npos) return host::Placement::sum();
  invalid_argument("placement of '" + name + "': '" + how + "' is not replicate, split[:K], gather[:K] or sum",
                   "place inputs replicate or split, read_write buffers split, outputs gather or sum");
}

host::Placements placements_of(const py::object& given) {
  host::Placements out;
  if (given.is_none()) return out;
  if (!py::isinstance<py::dict>(given))
    invalid_argument("placements must be a dict of buffer name to placement", "pass e.g. {'a': 'split', 'out': 'gather'}");
  for (auto item : given.cast<py::dict>()) {
    const std::string name = py::str(item.first).cast<std::string>();
    out.emplace(name, placement_of(name, py::str(item.second).cast<std::string>()));
  }
  return out;
}

Type collective_type(const py::object& dtype) {
  const py::dtype d = py::dtype::from_args(dtype);
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'u' && size == 4) return Type::U32;
  if (kind == 'i' && size == 4) return Type::I32;
  if (kind == 'u' && size == 8) return Type::U64;
  if (kind == 'i' && size == 8) return Type::I64;
  if (kind == 'f' && size == 4) return Type::F32;
  if (kind == 'f' && size == 8) return Type::F64;
  fail(VYRE_ERR_UNSUPPORTED, "collectives of " + py::str(static_cast<const py::handle&>(d)).cast<std::string>() + " elements are not supported",
       "use uint32, int32, uint64, int64, float32 or float64 elements (widen narrow types first)");
}

host::Reduce reduce_of(const std::string& op) {
  if (op == "sum") return host::Reduce::sum;
  if (op == "min") return host::Reduce::min;
  if (op == "max") return host::Reduce::max;
  if (op == "and") return host::Reduce::bit_and;
  if (op == "or") return host::Reduce::bit_or;
  if (op == "xor") return host::Reduce::bit_xor;
  if (op == "sum_rank_order") return host::Reduce::sum_rank_order;
  invalid_argument("reduction '" + op + "' is unknown", "pass sum, min, max, and, or, xor or sum_rank_order");
}

// One resident buffer per member (a list of ResidentBuffer).
host::GroupBuffers buffers_of(const py::handle& list, const char* what) {
  if (py::isinstance<PyResident>(list) || !py::isinstance<py::sequence>(list) || py::isinstance<py::str>(list))
    invalid_argument(std::string(what) + " must be a list of ResidentBuffer, one per member in rank order",
                     "pass what group.alloc returns");
  host::GroupBuffers out;
  for (const py::handle item : list) {
    if (item.is_none()) {
      out.emplace_back();
      continue;
    }
    if (!py::isinstance<PyResident>(item))
      invalid_argument(std::string(what) + " holds a " + py::str(py::type::of(item)).cast<std::string>() +
                           ", not a vyre.ResidentBuffer",
                       "pass what group.alloc returns");
    out.push_back(item.cast<PyResident>().buffer);
  }
  return out;
}

std::uint64_t elements_in(const host::GroupBuffers& buffers, Type t) {
  for (const host::ResidentBuffer& b : buffers)
    if (b) return b.byte_len() / byte_size(t);
  return 0;
}

// run_resident's bindings: per non-workgroup buffer, a list of per-member buffers, or an array
// (read/uniform: host bytes every member reads).
struct GroupArguments {
  std::shared_ptr<PyProgram> program;
  DispatchConfig config;
  std::vector<host::GroupBinding> bindings;
  std::vector<py::object> keep;
};

GroupArguments group_arguments(const py::handle& program, const py::args& args, const py::kwargs& kwargs) {
  GroupArguments out;
  out.program = program.cast<std::shared_ptr<PyProgram>>();
  const vyre::Program& ir = out.program->ir();
  const BufferBindings bound = bind_buffers(ir, args, kwargs, &out.config, "buffers");
  const std::vector<std::size_t>& slots = bound.slots;
  const std::vector<py::handle>& given = bound.objects;
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const BufferDecl& decl = ir.buffers[slots[k]];
    const bool is_list = (py::isinstance<py::list>(given[k]) || py::isinstance<py::tuple>(given[k]));
    if (is_list) {
      out.bindings.push_back(host::GroupBinding::of(buffers_of(given[k], decl.name.c_str())));
      continue;
    }
    if (decl.access != Access::Read && decl.access != Access::Uniform)
      invalid_argument("buffer '" + decl.name + "' (" + std::string(access_name(decl.access)) +
                           ") needs a list of ResidentBuffer, one per member",
                       "bind it to group.alloc(...)");
    HostInput in = host_input(decl, given[k]);
    out.keep.push_back(in.keep);
    out.bindings.push_back(host::GroupBinding::host_bytes(in.bytes));
  }
  return out;
}

}  // namespace

void bind_group(py::module_& m) {
  py::class_<host::GroupShards>(m, "GroupShards",
                                "Where a group dispatch's work went: every rank's workgroups along x.")
      .def_property_readonly("ranges", [](const host::GroupShards& s) {
        py::list out;
        for (const ShardRange& r : s.ranges) out.append(py::make_tuple(r.first, r.count));
        return out;
      }, "[(first_workgroup, workgroup_count)] per rank, in rank order.")
      .def("elements", [](const host::GroupShards& s, std::uint32_t rank, std::uint64_t count, std::uint64_t per_invocation) {
        if (rank >= s.ranges.size())
          invalid_argument("rank " + std::to_string(rank) + " of a group of " + std::to_string(s.ranges.size()),
                           "pass a rank from 0 to ranks - 1");
        const IndexRange e = s.elements(rank, per_invocation, count);
        return py::make_tuple(e.begin, e.end);
      }, py::arg("rank"), py::arg("count"), py::arg("per_invocation") = 1,
         "(begin, end): the elements of a `count`-element buffer that rank `rank` wrote, "
         "`per_invocation` per invocation along x.");

  py::class_<PyGroup>(m, "Group", "A device group: instances of one backend, one per device (docs/MULTI_GPU.md).")
      .def(py::init([](const py::sequence& members) {
        std::vector<host::Backend> backends;
        for (const py::handle b : members) {
          if (!py::isinstance<PyBackend>(b))
            invalid_argument("Group members must be vyre.Backend instances", "pass registry.create(id, device_ordinal=d) per device");
          backends.push_back(b.cast<const PyBackend&>().backend);
        }
        return PyGroup{host::Group(std::move(backends))};
      }), py::arg("members"), "A group over `members` (rank order), instances of one backend (cuda).")
      .def_static("join", [](const PyBackend& member, const std::string& id_file, std::uint32_t ranks,
                             std::uint32_t rank, std::uint32_t timeout_ms) {
        py::gil_scoped_release release;
        return PyGroup{host::Group::join(member.backend, id_file, ranks, rank, timeout_ms)};
      }, py::arg("member"), py::arg("id_file"), py::arg("ranks"), py::arg("rank"), py::arg("timeout_ms") = 60000,
         "Join rank `rank` of a group of `ranks` processes (one per device) through `id_file`.")
      .def_property_readonly("size", [](const PyGroup& g) { return g.group.size(); }, "Members in this process.")
      .def_property_readonly("ranks", [](const PyGroup& g) { return g.group.ranks(); }, "Ranks in every process.")
      .def_property_readonly("first_rank", [](const PyGroup& g) { return g.group.first_rank(); })
      .def_property_readonly("has_collectives", [](const PyGroup& g) { return g.group.has_collectives(); })
      .def("member", [](const PyGroup& g, std::size_t i) {
        if (i >= g.group.size())
          invalid_argument("member " + std::to_string(i) + " of a group of " + std::to_string(g.group.size()),
                           "pass 0 to size - 1");
        return PyBackend{g.group.member(i)};
      }, py::arg("index"))
      .def("connect", [](const PyGroup& g) {
        py::gil_scoped_release release;
        g.group.connect();
      }, "Create the members' communicator now (the first collective does otherwise).")
      .def("run", [](const PyGroup& g, const py::handle& program, const py::args& args, py::kwargs kwargs) {
        const py::object placements = kwargs.contains("placements") ? py::reinterpret_borrow<py::object>(kwargs["placements"]) : py::none();
        if (kwargs.contains("placements")) PyDict_DelItemString(kwargs.ptr(), "placements");
        const host::Placements placed = placements_of(placements);
        RunArguments run = run_arguments(program.cast<std::shared_ptr<PyProgram>>(), args, kwargs);
        std::vector<host::Bytes> inputs;
        for (const HostInput& in : run.inputs) inputs.push_back(in.bytes);
        std::vector<host::ByteVector> results;
        {
          py::gil_scoped_release release;
          results = g.group.dispatch(run.program->ir(), inputs, placed, run.config);
        }
        std::vector<py::array> arrays;
        for (std::size_t k = 0; k < results.size(); ++k) {
          arrays.push_back(new_output(run.program->ir().buffers[run.program->outputs()[k]], results[k].size()));
          if (!results[k].empty()) std::memcpy(writable_bytes(arrays.back()).data(), results[k].data(), results[k].size());
        }
        return outputs_result(*run.program, std::move(arrays));
      }, py::arg("program"),
         "Sharded dispatch: inputs as Backend.run takes them, placements={name: 'replicate' | "
         "'split[:K]' | 'gather[:K]' | 'sum'}; returns the single-device outputs.")
      .def("run_resident", [](const PyGroup& g, const py::handle& program, const py::args& args, const py::kwargs& kwargs) {
        GroupArguments run = group_arguments(program, args, kwargs);
        py::gil_scoped_release release;
        return g.group.dispatch_resident(run.program->ir(), run.bindings, run.config);
      }, py::arg("program"),
         "Sharded dispatch on per-member buffers (lists from group.alloc; arrays for read buffers), "
         "outputs left on each device; returns the GroupShards.")
      .def("alloc", [](const PyGroup& g, std::uint64_t nbytes, const py::object& dtype) {
        const py::dtype d = py::dtype::from_args(dtype);
        const std::optional<dlpack::DataType> element = dlpack_dtype(d);
        const auto item = static_cast<std::uint64_t>(d.itemsize());
        if (!element || nbytes % item != 0)
          invalid_argument("alloc(" + std::to_string(nbytes) + "): not a whole number of elements of a bool, integer or float dtype",
                           "pass nbytes as a multiple of the dtype's itemsize, with a numeric dtype");
        host::GroupBuffers buffers;
        {
          py::gil_scoped_release release;
          buffers = g.group.alloc(nbytes);
        }
        py::list out;
        for (std::size_t r = 0; r < buffers.size(); ++r)
          out.append(PyResident{g.group.member(r), buffers[r], *element, {static_cast<std::int64_t>(nbytes / item)}});
        return out;
      }, py::arg("nbytes"), py::arg("dtype") = py::str("uint8"),
         "A zeroed buffer of `nbytes` bytes on every member: a list in rank order.")
      .def("all_reduce", [](const PyGroup& g, const py::handle& send, const py::handle& recv, const py::object& dtype,
                            const std::string& op, std::optional<std::uint64_t> count) {
        const Type t = collective_type(dtype);
        const host::GroupBuffers s = buffers_of(send, "send"), r = buffers_of(recv, "recv");
        py::gil_scoped_release release;
        g.group.all_reduce(s, r, t, reduce_of(op), count.value_or(elements_in(s, t)));
      }, py::arg("send"), py::arg("recv"), py::arg("dtype"), py::arg("op") = "sum", py::arg("count") = py::none(),
         "recv[r][i] = op over ranks of send[q][i]; op: sum, min, max, and, or, xor, sum_rank_order.")
      .def("all_gather", [](const PyGroup& g, const py::handle& send, const py::handle& recv, const py::object& dtype,
                            std::optional<std::uint64_t> count) {
        const Type t = collective_type(dtype);
        const host::GroupBuffers s = buffers_of(send, "send"), r = buffers_of(recv, "recv");
        py::gil_scoped_release release;
        g.group.all_gather(s, r, t, count.value_or(elements_in(s, t)));
      }, py::arg("send"), py::arg("recv"), py::arg("dtype"), py::arg("count") = py::none(),
         "recv[r][q * count + i] = send[q][i].")
      .def("reduce_scatter", [](const PyGroup& g, const py::handle& send, const py::handle& recv, const py::object& dtype,
                                const std::string& op, std::optional<std::uint64_t> count) {
        const Type t = collective_type(dtype);
        const host::GroupBuffers s = buffers_of(send, "send"), r = buffers_of(recv, "recv");
        py::gil_scoped_release release;
        g.group.reduce_scatter(s, r, t, reduce_of(op), count.value_or(elements_in(r, t)));
      }, py::arg("send"), py::arg("recv"), py::arg("dtype"), py::arg("op") = "sum", py::arg("count") = py::none(),
         "recv[r][i] = op over ranks q of send[q][r * count + i].")
      .def("broadcast", [](const PyGroup& g, const py::handle& send, const py::handle& recv, const py::object& dtype,
                           std::uint32_t root, std::optional<std::uint64_t> count) {
        const Type t = collective_type(dtype);
        const host::GroupBuffers s = buffers_of(send, "send"), r = buffers_of(recv, "recv");
        py::gil_scoped_release release;
        g.group.broadcast(s, r, t, count.value_or(elements_in(r, t)), root);
      }, py::arg("send"), py::arg("recv"), py::arg("dtype"), py::arg("root") = 0, py::arg("count") = py::none(),
         "recv[r][i] = send[root][i] (other ranks' send entries may be None).")
      .def("__repr__", [](const PyGroup& g) {
        return "<vyre.Group of " + std::to_string(g.group.ranks()) + " ranks (" + std::to_string(g.group.size()) +
               " here) on " + g.group.member(0).label() + ">";
      });
}

}  // namespace vyre::python
