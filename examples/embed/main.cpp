// An application embedding vyre: build a program with the C++ builder, let the registry route it
// to the best backend that can run it here, dispatch it, and check the result.
//
//   embed_app            route and run a 1024-element u32 xor; exit 0 when every element is right
//   embed_app --plugins  print "loaded <file>" / "rejected <file>" for each plugin file the
//                        registry found (the installed plugins, plus VYRE_PLUGIN_PATH), and exit
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include <vyre/builder.hpp>
#include <vyre/registry.hpp>

namespace {

vyre::Program xor_program(std::uint32_t n) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("a", vyre::Access::Read, vyre::Type::U32, n);
  auto y = b.buffer("b", vyre::Access::Read, vyre::Type::U32, n);
  auto out = b.buffer("out", vyre::Access::Output, vyre::Type::U32, n);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, x[i] ^ y[i]);
  return b.build();
}

int list_plugins(const vyre::Registry& registry) {
  for (const vyre::PluginInfo& plugin : registry.plugins())
    std::printf("loaded %s %s\n", plugin.id.c_str(), plugin.path.c_str());
  for (const vyre::RejectedPlugin& rejected : registry.rejected())
    std::printf("rejected %s\n", rejected.path.c_str());
  return 0;
}

int run_xor(vyre::Registry& registry) {
  constexpr std::uint32_t n = 1024;
  const vyre::Program program = xor_program(n);
  vyre::Route route = registry.route(program);
  std::printf("routed to %s: %s\n", route.plugin->id.c_str(), route.reason.c_str());

  std::vector<std::uint32_t> a(n), b(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    a[i] = i * 2654435761u;
    b[i] = ~i;
  }
  const vyre::host::Program compiled = route.backend.compile(program);
  const vyre::host::Bytes inputs[] = {vyre::host::as_bytes(a), vyre::host::as_bytes(b)};
  const std::vector<vyre::host::ByteVector> outputs = route.backend.dispatch(compiled, inputs);

  const auto* out = reinterpret_cast<const std::uint32_t*>(outputs.at(0).data());
  if (outputs.at(0).size() != n * sizeof(std::uint32_t)) {
    std::printf("wrong output size %zu\n", outputs.at(0).size());
    return 1;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    if (out[i] != (a[i] ^ b[i])) {
      std::printf("mismatch at %u: %u != %u\n", i, out[i], a[i] ^ b[i]);
      return 1;
    }
  }
  std::printf("ok: %u elements\n", n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    vyre::Registry registry;  // VYRE_PLUGIN_PATH, then the plugins installed with vyre
    if (argc > 1 && std::string_view(argv[1]) == "--plugins") return list_plugins(registry);
    return run_xor(registry);
  } catch (const vyre::Error& e) {
    std::fprintf(stderr, "embed_app: [%s] %s\n", std::string(vyre::status_name(e.code())).c_str(), e.what());
    return 1;
  }
}
