// The plugin kit seen through the raw C function table: struct_size rules, handle checks, and
// every dispatch argument check (each error before any work: no output byte written).
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "test_support.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/builder.hpp"
#include "vyre/wire.hpp"

using namespace vyre;
using vyre::testing::binary_program;
using vyre::testing::test_registry;

namespace {

struct Outcome {
  vyre_status status = VYRE_OK;
  std::string message;
  bool contains(std::string_view text) const { return message.find(text) != std::string::npos; }
};

// One raw instance of a test plugin.
class Raw {
 public:
  explicit Raw(std::string_view id = "t_copy")
      : registry_(test_registry()), fns_(*registry_->fns(id)), keep_(registry_->keep_alive(id)) {
    REQUIRE(call([&](vyre_error** e) { return fns_.create(nullptr, &backend_, e); }).status == VYRE_OK);
  }
  ~Raw() { fns_.destroy(backend_); }

  const vyre_backend_fns& fns() const { return fns_; }
  vyre_backend* backend() const { return backend_; }
  Registry& registry() { return *registry_; }

  template <class F>
  Outcome call(F&& f) const {
    vyre_error* error = nullptr;
    Outcome out;
    out.status = f(&error);
    if (error != nullptr) {
      CHECK(error->code == out.status);
      out.message = error->message;
      CHECK(out.message.find("Fix: ") != std::string::npos);
    }
    CHECK((out.status == VYRE_OK) == (error == nullptr));
    fns_.error_release(error);
    return out;
  }

  vyre_program* compile(const Program& program) const {
    const std::vector<std::uint8_t> wire = encode_wire(program);
    vyre_program* handle = nullptr;
    const Outcome o = call([&](vyre_error** e) {
      return fns_.program_compile(backend_, wire.data(), wire.size(), &handle, e);
    });
    REQUIRE_MESSAGE(o.status == VYRE_OK, o.message);
    return handle;
  }

  vyre_resident* alloc(std::uint64_t bytes) const {
    vyre_resident* handle = nullptr;
    REQUIRE(call([&](vyre_error** e) { return fns_.resident_alloc(backend_, bytes, &handle, e); })
                .status == VYRE_OK);
    return handle;
  }

 private:
  std::unique_ptr<Registry> registry_;
  const vyre_backend_fns& fns_;
  std::shared_ptr<void> keep_;
  vyre_backend* backend_ = nullptr;
};

// A host dispatch of binary_program(Xor, 4) whose pieces a test can break one at a time.
struct XorDispatch {
  std::vector<std::uint32_t> a{1, 2, 3, 4}, b{7, 7, 7, 7};
  std::vector<std::uint8_t> out = std::vector<std::uint8_t>(16, 0xAA);
  vyre_host_input inputs[2];
  vyre_host_output outputs[1];
  vyre_dispatch_config config{};
  vyre_dispatch_args args{};

  explicit XorDispatch(vyre_program* program) {
    inputs[0] = {sizeof(vyre_host_input), a.data(), a.size() * 4};
    inputs[1] = {sizeof(vyre_host_input), b.data(), b.size() * 4};
    outputs[0] = {sizeof(vyre_host_output), out.data(), out.size(), 12345};
    config.struct_size = sizeof config;
    args = {sizeof(vyre_dispatch_args), program, &config, inputs, 2, outputs, 1, 0};
  }
  bool untouched() const {
    for (std::uint8_t byte : out)
      if (byte != 0xAA) return false;
    return outputs[0].byte_len == 12345;
  }
  std::vector<std::uint32_t> result() const {
    std::vector<std::uint32_t> words(4);
    std::memcpy(words.data(), out.data(), 16);
    return words;
  }
};

const std::vector<std::uint32_t> kXorResult = {6, 5, 4, 3};

}  // namespace

TEST_CASE("create: options follow the struct_size rules; bad instances are errors, not crashes") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  vyre_backend* other = nullptr;
  SUBCASE("options below the 1.0 size") {
    vyre_create_options options{};
    options.struct_size = 8;
    CHECK(raw.call([&](vyre_error** e) { return fns.create(&options, &other, e); }).status == VYRE_ERR_ABI);
  }
  SUBCASE("options larger than known are read up to what the kit knows") {
    struct Bigger {
      vyre_create_options options;
      std::uint64_t future_field;
    } bigger{};
    bigger.options.struct_size = sizeof bigger;
    bigger.options.device_ordinal = -1;
    bigger.future_field = ~0ull;
    CHECK(raw.call([&](vyre_error** e) { return fns.create(&bigger.options, &other, e); }).status == VYRE_OK);
    fns.destroy(other);
  }
  SUBCASE("unknown flags") {
    vyre_create_options options{sizeof options, -1, 0x80, 0, 0};
    const Outcome o = raw.call([&](vyre_error** e) { return fns.create(&options, &other, e); });
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("unknown bits"));
  }
  SUBCASE("NULL out") {
    CHECK(raw.call([&](vyre_error** e) { return fns.create(nullptr, nullptr, e); }).status ==
          VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("the error out-pointer may be NULL") {
    CHECK(fns.create(nullptr, nullptr, nullptr) == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("NULL, bogus and destroyed instances") {
    vyre_device_profile profile{};
    profile.struct_size = sizeof profile;
    auto profile_of = [&](vyre_backend* b) {
      return raw.call([&](vyre_error** e) { return fns.device_profile(b, &profile, e); }).status;
    };
    CHECK(profile_of(nullptr) == VYRE_ERR_INVALID_HANDLE);
    CHECK(profile_of(reinterpret_cast<vyre_backend*>(0x1234)) == VYRE_ERR_INVALID_HANDLE);
    REQUIRE(fns.create(nullptr, &other, nullptr) == VYRE_OK);
    CHECK(profile_of(other) == VYRE_OK);
    fns.destroy(other);
    CHECK(profile_of(other) == VYRE_ERR_INVALID_HANDLE);
    fns.destroy(other);  // already destroyed: ignored
    fns.destroy(nullptr);
    fns.destroy(reinterpret_cast<vyre_backend*>(0x1234));
    CHECK(profile_of(raw.backend()) == VYRE_OK);
  }
}

TEST_CASE("out-structs are truncated to the caller's struct_size; too small is an ABI error") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  SUBCASE("device profile into a larger struct") {
    struct Bigger {
      vyre_device_profile profile;
      std::uint64_t sentinel;
    } bigger{};
    bigger.profile.struct_size = sizeof bigger;
    bigger.sentinel = 0x5151;
    CHECK(raw.call([&](vyre_error** e) { return fns.device_profile(raw.backend(), &bigger.profile, e); })
              .status == VYRE_OK);
    CHECK(bigger.profile.struct_size == sizeof(vyre_device_profile));
    CHECK(std::string(bigger.profile.name) == "test device t_copy");
    CHECK(bigger.sentinel == 0x5151);
  }
  SUBCASE("device profile exactly the 1.0 fields") {
    vyre_device_profile profile{};
    profile.struct_size = abi::min_size<vyre_device_profile>();
    CHECK(raw.call([&](vyre_error** e) { return fns.device_profile(raw.backend(), &profile, e); })
              .status == VYRE_OK);
    CHECK(profile.struct_size == abi::min_size<vyre_device_profile>());
  }
  SUBCASE("device profile below the 1.0 size") {
    vyre_device_profile profile{};
    profile.struct_size = offsetof(vyre_device_profile, target);
    CHECK(raw.call([&](vyre_error** e) { return fns.device_profile(raw.backend(), &profile, e); })
              .status == VYRE_ERR_ABI);
    CHECK(profile.name[0] == '\0');
  }
  SUBCASE("timing below the 1.0 size: nothing runs") {
    XorDispatch d(raw.compile(binary_program(BinOp::Xor, 4)));
    vyre_timing timing{};
    timing.struct_size = 8;
    CHECK(raw.call([&](vyre_error** e) { return fns.dispatch_timed(raw.backend(), &d.args, &timing, e); })
              .status == VYRE_ERR_ABI);
    CHECK(d.untouched());
  }
}

TEST_CASE("program_compile decodes, validates and checks the declared ops") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  vyre_program* program = nullptr;
  auto compile_bytes = [&](const std::vector<std::uint8_t>& wire) {
    return raw.call([&](vyre_error** e) {
      return fns.program_compile(raw.backend(), wire.data(), wire.size(), &program, e);
    });
  };
  SUBCASE("bytes that are not a program") {
    CHECK(compile_bytes({'n', 'o', 'p', 'e'}).status == VYRE_ERR_DECODE);
    CHECK(raw.call([&](vyre_error** e) { return fns.program_compile(raw.backend(), nullptr, 4, &program, e); })
              .status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("a program that fails validation") {
    using namespace vyre::dsl;
    ProgramBuilder b;
    Buf x = b.buffer("x", Access::Read, Type::U32);
    b.store(x, u32(0), u32(1));  // a read buffer is not writable
    CHECK(compile_bytes(encode_wire(b.build())).status == VYRE_ERR_INVALID_PROGRAM);
  }
  SUBCASE("ops the plugin does not declare are named") {
    const Outcome o = compile_bytes(encode_wire(binary_program(BinOp::Add, 4)));
    CHECK(o.status == VYRE_ERR_UNSUPPORTED);
    CHECK(o.contains("bin.add.u32"));
    CHECK(o.contains("t_copy"));
    CHECK(program == nullptr);
  }
  SUBCASE("release once; a second release is an invalid handle") {
    program = raw.compile(binary_program(BinOp::Xor, 4));
    auto release = [&] {
      return raw.call([&](vyre_error** e) { return fns.program_release(raw.backend(), program, e); }).status;
    };
    CHECK(release() == VYRE_OK);
    CHECK(release() == VYRE_ERR_INVALID_HANDLE);
    XorDispatch d(program);
    CHECK(raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), &d.args, e); }).status ==
          VYRE_ERR_INVALID_HANDLE);
    CHECK(d.untouched());
  }
}

TEST_CASE("handles of another instance, another plugin or another kind are invalid") {
  Raw a, b;
  Raw wide("t_wide");
  const vyre_backend_fns& fns = a.fns();
  vyre_program* program = a.compile(binary_program(BinOp::Xor, 4));
  vyre_resident* buffer = a.alloc(16);
  XorDispatch d(program);
  CHECK(b.call([&](vyre_error** e) { return fns.dispatch(b.backend(), &d.args, e); }).status ==
        VYRE_ERR_INVALID_HANDLE);
  CHECK(wide.call([&](vyre_error** e) { return wide.fns().dispatch(wide.backend(), &d.args, e); }).status ==
        VYRE_ERR_INVALID_HANDLE);
  CHECK(d.untouched());
  CHECK(b.call([&](vyre_error** e) { return fns.resident_free(b.backend(), buffer, e); }).status ==
        VYRE_ERR_INVALID_HANDLE);
  CHECK(b.call([&](vyre_error** e) { return fns.program_release(b.backend(), program, e); }).status ==
        VYRE_ERR_INVALID_HANDLE);
  // A program handle is not a resident buffer, even on its own instance.
  auto* as_resident = reinterpret_cast<vyre_resident*>(program);
  CHECK(a.call([&](vyre_error** e) { return fns.resident_free(a.backend(), as_resident, e); }).status ==
        VYRE_ERR_INVALID_HANDLE);
  // Still fine on their own instance.
  CHECK(a.call([&](vyre_error** e) { return fns.dispatch(a.backend(), &d.args, e); }).status == VYRE_OK);
  CHECK(d.result() == kXorResult);
  CHECK(a.call([&](vyre_error** e) { return fns.resident_free(a.backend(), buffer, e); }).status == VYRE_OK);
}

TEST_CASE("host dispatch checks every argument before any work") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  XorDispatch d(raw.compile(binary_program(BinOp::Xor, 4)));
  auto dispatch = [&] { return raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), &d.args, e); }); };

  SUBCASE("the happy path writes outputs and byte_len") {
    CHECK(dispatch().status == VYRE_OK);
    CHECK(d.result() == kXorResult);
    CHECK(d.outputs[0].byte_len == 16);
  }
  SUBCASE("input count") {
    d.args.input_count = 1;
    const Outcome o = dispatch();
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("passes 1 inputs but the program has 2"));
  }
  SUBCASE("output count") {
    d.args.output_count = 0;
    CHECK(dispatch().status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("an input that is not whole elements") {
    d.inputs[1].byte_len = 6;
    const Outcome o = dispatch();
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("not a multiple"));
  }
  SUBCASE("an input with NULL data and bytes") {
    d.inputs[0].data = nullptr;
    CHECK(dispatch().status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("output capacity") {
    d.outputs[0].capacity = 15;
    const Outcome o = dispatch();
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("needs 16 bytes"));
  }
  SUBCASE("output data NULL") {
    d.outputs[0].data = nullptr;
    CHECK(dispatch().status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("args below the 1.0 size") {
    d.args.struct_size = 16;
    CHECK(dispatch().status == VYRE_ERR_ABI);
  }
  SUBCASE("an input array whose first element is below the 1.0 size") {
    d.inputs[0].struct_size = 8;
    CHECK(dispatch().status == VYRE_ERR_ABI);
  }
  SUBCASE("config: below the 1.0 size, unknown flags, inconsistent geometry") {
    d.config.struct_size = 8;
    CHECK(dispatch().status == VYRE_ERR_ABI);
    d.config.struct_size = sizeof d.config;
    d.config.flags = 0x100;
    CHECK(dispatch().status == VYRE_ERR_INVALID_ARGUMENT);
    d.config.flags = VYRE_CONFIG_HAS_WORKGROUP;
    d.config.workgroup[0] = 8;
    d.config.workgroup[1] = 8;
    d.config.workgroup[2] = 1;  // 2-D without a grid
    CHECK(dispatch().status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("NULL args and a NULL backend") {
    d.args.struct_size = sizeof d.args;
    CHECK(raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), nullptr, e); }).status ==
          VYRE_ERR_INVALID_ARGUMENT);
    CHECK(raw.call([&](vyre_error** e) { return fns.dispatch(nullptr, &d.args, e); }).status ==
          VYRE_ERR_INVALID_HANDLE);
  }
  CHECK((d.untouched() || d.result() == kXorResult));
  if (d.result() != kXorResult) CHECK(d.untouched());
}

TEST_CASE("arrays are strided by their first element's struct_size") {
  Raw raw;
  struct WideInput {
    vyre_host_input input;
    std::uint64_t extra[3];
  };
  struct WideOutput {
    vyre_host_output output;
    std::uint64_t extra;
  };
  const std::vector<std::uint32_t> a = {1, 2, 3, 4}, b = {7, 7, 7, 7};
  std::vector<std::uint32_t> out(4, 0);
  WideInput inputs[2] = {{{sizeof(WideInput), a.data(), 16}, {~0ull, ~0ull, ~0ull}},
                         {{sizeof(WideInput), b.data(), 16}, {~0ull, ~0ull, ~0ull}}};
  WideOutput outputs[1] = {{{sizeof(WideOutput), out.data(), 16, 0}, 0x77}};
  const vyre_dispatch_args args{sizeof args, raw.compile(binary_program(BinOp::Xor, 4)), nullptr,
                                &inputs[0].input, 2, &outputs[0].output, 1, 0};
  CHECK(raw.call([&](vyre_error** e) { return raw.fns().dispatch(raw.backend(), &args, e); }).status == VYRE_OK);
  CHECK(out == kXorResult);
  CHECK(outputs[0].output.byte_len == 16);
  CHECK(outputs[0].extra == 0x77);
}

TEST_CASE("fixed-size inputs, output ranges and the fixpoint op are checked") {
  using namespace vyre::dsl;
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  SUBCASE("a fixed-size input must be exactly count * size") {
    ProgramBuilder b;
    b.workgroup(4);
    Buf x = b.buffer("x", Access::Read, Type::U32, 4);
    Buf y = b.buffer("y", Access::Output, Type::U32, 4);
    Expr i = b.let("i", invocation_id(0));
    b.store(y, i, x[i]);
    vyre_program* program = raw.compile(b.build());
    std::vector<std::uint32_t> in(3, 1), out(4, 0);
    vyre_host_input input{sizeof input, in.data(), 12};
    vyre_host_output output{sizeof output, out.data(), 16, 0};
    const vyre_dispatch_args args{sizeof args, program, nullptr, &input, 1, &output, 1, 0};
    const Outcome o = raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), &args, e); });
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("declared with 4"));
  }
  SUBCASE("an output_byte_range past a runtime-sized buffer") {
    Program p = vyre::testing::xor_in_place_program();
    p.buffers[0].output_byte_range = ByteRange{4, 32};
    vyre_program* program = raw.compile(p);
    std::vector<std::uint32_t> x(4, 1), k(4, 3), out(8, 0);
    vyre_host_input inputs[2] = {{sizeof(vyre_host_input), x.data(), 16},
                                 {sizeof(vyre_host_input), k.data(), 16}};
    vyre_host_output output{sizeof output, out.data(), 32, 0};
    const vyre_dispatch_args args{sizeof args, program, nullptr, inputs, 2, &output, 1, 0};
    const Outcome o = raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), &args, e); });
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("output_byte_range [4, 32)"));
    x.resize(8, 1);
    k.resize(8, 3);
    inputs[0].byte_len = inputs[1].byte_len = 32;
    inputs[0].data = x.data();
    inputs[1].data = k.data();
    CHECK(raw.call([&](vyre_error** e) { return fns.dispatch(raw.backend(), &args, e); }).status == VYRE_OK);
    CHECK(output.byte_len == 28);
    CHECK(out[0] == 2);  // x[1] ^ k[1], the range starts at byte 4
  }
  SUBCASE("fixpoint iterations need dispatch.fixpoint") {
    Raw wide("t_wide");
    XorDispatch d(wide.compile(binary_program(BinOp::Xor, 4)));
    d.config.fixpoint_iterations = 2;
    const Outcome o = wide.call([&](vyre_error** e) { return wide.fns().dispatch(wide.backend(), &d.args, e); });
    CHECK(o.status == VYRE_ERR_UNSUPPORTED);
    CHECK(o.contains("dispatch.fixpoint"));
    CHECK(d.untouched());
  }
}

TEST_CASE("resident buffers: bounds, double free, busy while in flight") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  vyre_resident* buffer = raw.alloc(16);
  std::uint64_t len = 0;
  CHECK(raw.call([&](vyre_error** e) { return fns.resident_byte_len(raw.backend(), buffer, &len, e); }).status == VYRE_OK);
  CHECK(len == 16);
  const std::uint32_t words[4] = {1, 2, 3, 4};
  SUBCASE("uploads and downloads are bounds-checked (no offset overflow)") {
    vyre_resident_write write{sizeof write, buffer, 8, words, 16};
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_upload(raw.backend(), &write, 1, e); }).status ==
          VYRE_ERR_INVALID_ARGUMENT);
    write.offset = UINT64_MAX;
    write.byte_len = 2;
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_upload(raw.backend(), &write, 1, e); }).status ==
          VYRE_ERR_INVALID_ARGUMENT);
    write = {sizeof write, buffer, 4, words, 12};
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_upload(raw.backend(), &write, 1, e); }).status == VYRE_OK);
    std::uint32_t back[4] = {9, 9, 9, 9};
    vyre_resident_read read{sizeof read, buffer, 0, back, 20};
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_download(raw.backend(), &read, 1, e); }).status ==
          VYRE_ERR_INVALID_ARGUMENT);
    CHECK(back[0] == 9);
    read.byte_len = 16;
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_download(raw.backend(), &read, 1, e); }).status == VYRE_OK);
    CHECK(back[0] == 0);
    CHECK(back[1] == 1);
    CHECK(back[3] == 3);
  }
  SUBCASE("an allocation over the device's memory") {
    vyre_resident* big = nullptr;
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_alloc(raw.backend(), 1ull << 40, &big, e); })
              .status == VYRE_ERR_OUT_OF_MEMORY);
  }
  SUBCASE("busy while an async dispatch uses it, free after the wait; then invalid") {
    vyre_program* program = raw.compile(binary_program(BinOp::Xor, 4));
    vyre_binding bindings[3] = {{sizeof(vyre_binding), VYRE_BIND_HOST, nullptr, words, 16},
                                {sizeof(vyre_binding), VYRE_BIND_HOST, nullptr, words, 16},
                                {sizeof(vyre_binding), VYRE_BIND_RESIDENT, buffer, nullptr, 0}};
    const vyre_resident_dispatch_args args{sizeof args, program, nullptr, bindings, 3};
    vyre_pending* pending = nullptr;
    REQUIRE(raw.call([&](vyre_error** e) { return fns.dispatch_resident(raw.backend(), &args, &pending, e); })
                .status == VYRE_OK);
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_wait(raw.backend(), pending, 0, e); }).status ==
          VYRE_ERR_TIMEOUT);
    const Outcome busy = raw.call([&](vyre_error** e) { return fns.resident_free(raw.backend(), buffer, e); });
    CHECK(busy.status == VYRE_ERR_BUSY);
    CHECK(busy.contains("in flight"));
    std::int32_t done = 1;
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_poll(raw.backend(), pending, &done, e); }).status == VYRE_OK);
    CHECK(done == 0);
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_wait(raw.backend(), pending, UINT64_MAX, e); }).status == VYRE_OK);
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_poll(raw.backend(), pending, &done, e); }).status == VYRE_OK);
    CHECK(done == 1);
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_release(raw.backend(), pending, e); }).status == VYRE_OK);
    CHECK(raw.call([&](vyre_error** e) { return fns.pending_release(raw.backend(), pending, e); }).status ==
          VYRE_ERR_INVALID_HANDLE);
    std::uint32_t back[4] = {};
    vyre_resident_read read{sizeof read, buffer, 0, back, 16};
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_download(raw.backend(), &read, 1, e); }).status == VYRE_OK);
    CHECK(back[2] == 0);  // words ^ words
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_free(raw.backend(), buffer, e); }).status == VYRE_OK);
  }
  SUBCASE("free twice") {
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_free(raw.backend(), buffer, e); }).status == VYRE_OK);
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_free(raw.backend(), buffer, e); }).status ==
          VYRE_ERR_INVALID_HANDLE);
    CHECK(raw.call([&](vyre_error** e) { return fns.resident_byte_len(raw.backend(), buffer, &len, e); }).status ==
          VYRE_ERR_INVALID_HANDLE);
  }
}

TEST_CASE("resident dispatch bindings are checked") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  vyre_program* program = raw.compile(binary_program(BinOp::Xor, 4));
  const std::uint32_t a[4] = {1, 2, 3, 4}, b[4] = {7, 7, 7, 7};
  vyre_resident* out = raw.alloc(16);
  vyre_resident* small = raw.alloc(8);
  vyre_binding bindings[3] = {{sizeof(vyre_binding), VYRE_BIND_HOST, nullptr, a, 16},
                              {sizeof(vyre_binding), VYRE_BIND_HOST, nullptr, b, 16},
                              {sizeof(vyre_binding), VYRE_BIND_RESIDENT, out, nullptr, 0}};
  vyre_resident_dispatch_args args{sizeof args, program, nullptr, bindings, 3};
  auto run = [&] {
    return raw.call([&](vyre_error** e) { return fns.dispatch_resident(raw.backend(), &args, nullptr, e); });
  };
  SUBCASE("the happy path computes into the resident output") {
    CHECK(run().status == VYRE_OK);
    std::uint32_t back[4] = {};
    vyre_resident_read read{sizeof read, out, 0, back, 16};
    REQUIRE(fns.resident_download(raw.backend(), &read, 1, nullptr) == VYRE_OK);
    CHECK(std::vector<std::uint32_t>(back, back + 4) == kXorResult);
  }
  SUBCASE("binding count") {
    args.binding_count = 2;
    const Outcome o = run();
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("has 2 bindings but the program has 3"));
  }
  SUBCASE("host bytes bound to an output buffer") {
    bindings[2] = {sizeof(vyre_binding), VYRE_BIND_HOST, nullptr, a, 16};
    const Outcome o = run();
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("only for read and uniform"));
  }
  SUBCASE("a resident buffer of the wrong size for a fixed-size declaration") {
    bindings[2].resident = small;
    CHECK(run().status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("an unknown binding kind, a too-small binding struct, a freed buffer") {
    bindings[0].kind = 7;
    CHECK(run().status == VYRE_ERR_INVALID_ARGUMENT);
    bindings[0].kind = VYRE_BIND_HOST;
    bindings[0].struct_size = 8;
    CHECK(run().status == VYRE_ERR_ABI);
    bindings[0].struct_size = sizeof(vyre_binding);
    REQUIRE(fns.resident_free(raw.backend(), out, nullptr) == VYRE_OK);
    CHECK(run().status == VYRE_ERR_INVALID_HANDLE);
  }
  SUBCASE("sequence steps bind resident buffers only") {
    vyre_resident* ra = raw.alloc(16);
    vyre_resident* rb = raw.alloc(16);
    vyre_binding resident_bindings[3] = {{sizeof(vyre_binding), VYRE_BIND_RESIDENT, ra, nullptr, 0},
                                         {sizeof(vyre_binding), VYRE_BIND_RESIDENT, rb, nullptr, 0},
                                         {sizeof(vyre_binding), VYRE_BIND_RESIDENT, out, nullptr, 0}};
    vyre_sequence_step step{sizeof step, program, nullptr, bindings, 3};
    vyre_sequence_args seq{sizeof seq, &step, 1, nullptr, 0, 0, nullptr, 0};
    const Outcome o = raw.call([&](vyre_error** e) { return fns.sequence_run(raw.backend(), &seq, e); });
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("VYRE_BIND_HOST in a sequence step"));
    step.bindings = resident_bindings;
    vyre_resident_write writes[2] = {{sizeof(vyre_resident_write), ra, 0, a, 16},
                                     {sizeof(vyre_resident_write), rb, 0, b, 16}};
    REQUIRE(fns.resident_upload(raw.backend(), writes, 2, nullptr) == VYRE_OK);
    std::uint32_t back[4] = {};
    vyre_resident_read read{sizeof read, out, 0, back, 16};
    seq.reads = &read;
    seq.read_count = 1;
    CHECK(raw.call([&](vyre_error** e) { return fns.sequence_run(raw.backend(), &seq, e); }).status == VYRE_OK);
    CHECK(std::vector<std::uint32_t>(back, back + 4) == kXorResult);
  }
}

TEST_CASE("metrics: count-only calls, strided output, the kit's cache counters") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  std::size_t count = 0;
  REQUIRE(raw.call([&](vyre_error** e) { return fns.metrics_snapshot(raw.backend(), nullptr, 0, &count, e); })
              .status == VYRE_OK);
  CHECK(count == 5);  // test_compiles, test_dispatches, test_frees + the two cache counters
  struct WideMetric {
    vyre_metric metric;
    std::uint64_t sentinel;
  };
  WideMetric metrics[2] = {};
  metrics[0].metric.struct_size = sizeof(WideMetric);
  metrics[0].sentinel = metrics[1].sentinel = 0x99;
  REQUIRE(raw.call([&](vyre_error** e) { return fns.metrics_snapshot(raw.backend(), &metrics[0].metric, 2, &count, e); })
              .status == VYRE_OK);
  CHECK(count == 5);
  CHECK(std::string(metrics[0].metric.name) == "test_compiles");
  CHECK(std::string(metrics[1].metric.name) == "test_dispatches");
  CHECK(metrics[0].sentinel == 0x99);
  CHECK(metrics[1].sentinel == 0x99);
  CHECK(raw.call([&](vyre_error** e) { return fns.metrics_snapshot(raw.backend(), nullptr, 3, &count, e); })
            .status == VYRE_ERR_INVALID_ARGUMENT);
  CHECK(raw.call([&](vyre_error** e) { return fns.metrics_snapshot(raw.backend(), nullptr, 0, nullptr, e); })
            .status == VYRE_ERR_INVALID_ARGUMENT);
}

TEST_CASE("pipelines: flags are checked; AOT without support is unsupported; errors release safely") {
  Raw raw;
  const vyre_backend_fns& fns = raw.fns();
  vyre_pipeline* pipeline = nullptr;
  SUBCASE("unknown pipeline flags") {
    const vyre_pipeline_args args{sizeof args, raw.compile(binary_program(BinOp::Xor, 4)), nullptr, 0x40};
    CHECK(raw.call([&](vyre_error** e) { return fns.pipeline_create(raw.backend(), &args, &pipeline, e); })
              .status == VYRE_ERR_INVALID_ARGUMENT);
  }
  SUBCASE("the output cache is refused for read_write programs") {
    const vyre_pipeline_args args{sizeof args, raw.compile(vyre::testing::xor_in_place_program()), nullptr,
                                  VYRE_PIPELINE_CACHE_OUTPUTS};
    const Outcome o = raw.call([&](vyre_error** e) { return fns.pipeline_create(raw.backend(), &args, &pipeline, e); });
    CHECK(o.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(o.contains("'x' is read_write"));
  }
  SUBCASE("aot_emit without AOT support, with and without an instance") {
    const std::vector<std::uint8_t> wire = encode_wire(binary_program(BinOp::Xor, 4));
    const vyre_aot_args args{sizeof args, wire.data(), wire.size(), nullptr, nullptr, nullptr, 0};
    vyre_aot_output* output = nullptr;
    CHECK(raw.call([&](vyre_error** e) { return fns.aot_emit(nullptr, &args, &output, e); }).status ==
          VYRE_ERR_UNSUPPORTED);
    CHECK(raw.call([&](vyre_error** e) { return fns.aot_emit(raw.backend(), &args, &output, e); }).status ==
          VYRE_ERR_UNSUPPORTED);
    fns.aot_release(nullptr);
  }
  SUBCASE("error objects: NULL and double releases are ignored") {
    vyre_error* error = nullptr;
    CHECK(fns.program_release(raw.backend(), nullptr, &error) == VYRE_ERR_INVALID_HANDLE);
    REQUIRE(error != nullptr);
    CHECK(error->struct_size == sizeof(vyre_error));
    CHECK(error->code == VYRE_ERR_INVALID_HANDLE);
    fns.error_release(error);
    fns.error_release(error);
    fns.error_release(nullptr);
  }
}

TEST_CASE("destroy waits for in-flight work and frees every handle the instance still owns") {
  auto registry = test_registry();
  const vyre_backend_fns& fns = *registry->fns("t_copy");
  vyre_backend* backend = nullptr;
  REQUIRE(fns.create(nullptr, &backend, nullptr) == VYRE_OK);
  const std::vector<std::uint8_t> wire = encode_wire(binary_program(BinOp::Xor, 4));
  vyre_program* program = nullptr;
  REQUIRE(fns.program_compile(backend, wire.data(), wire.size(), &program, nullptr) == VYRE_OK);
  vyre_resident* buffers[3] = {};
  for (vyre_resident*& b : buffers) REQUIRE(fns.resident_alloc(backend, 16, &b, nullptr) == VYRE_OK);
  vyre_binding bindings[3];
  for (int i = 0; i < 3; ++i) bindings[i] = {sizeof(vyre_binding), VYRE_BIND_RESIDENT, buffers[i], nullptr, 0};
  const vyre_resident_dispatch_args args{sizeof args, program, nullptr, bindings, 3};
  vyre_pending* pending = nullptr;
  REQUIRE(fns.dispatch_resident(backend, &args, &pending, nullptr) == VYRE_OK);
  vyre_pipeline* pipeline = nullptr;
  const vyre_pipeline_args pipeline_args{sizeof pipeline_args, program, nullptr, VYRE_PIPELINE_CACHE_OUTPUTS};
  REQUIRE(fns.pipeline_create(backend, &pipeline_args, &pipeline, nullptr) == VYRE_OK);
  const auto start = std::chrono::steady_clock::now();
  fns.destroy(backend);  // the test backend's async work takes 300 ms
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(250));
  CHECK(fns.pending_release(backend, pending, nullptr) == VYRE_ERR_INVALID_HANDLE);
  CHECK(fns.resident_free(backend, buffers[0], nullptr) == VYRE_ERR_INVALID_HANDLE);
}
