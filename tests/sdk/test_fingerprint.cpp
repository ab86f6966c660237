// SHA-256 against FIPS 180-2 vectors, incremental hashing, file hashing and its errors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"

TEST_CASE("known SHA-256 vectors") {
  CHECK(vyre::to_hex(vyre::sha256(std::string_view(""))) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(vyre::to_hex(vyre::sha256(std::string_view("abc"))) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string_view two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(vyre::to_hex(vyre::sha256(two_blocks)) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::vector<std::uint8_t> bytes{'a', 'b', 'c'};
  CHECK(vyre::sha256_hex(bytes) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("incremental hashing equals one-shot hashing, and the builder is reusable") {
  vyre::Sha256Builder b;
  b.add(std::string_view("abcdbcdecdefdefgefghfghighij")).add(std::string_view("hijkijkljklmklmnlmnomnopnopq"));
  CHECK(vyre::to_hex(b.finish()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  b.add(std::string_view("abc"));
  CHECK(vyre::to_hex(b.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  vyre::Sha256Builder le;
  le.add_u64(0x0807060504030201ull);
  std::vector<std::uint8_t> expected{1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(le.finish() == vyre::sha256(expected));
  CHECK(vyre::to_hex(std::vector<std::uint8_t>{0x00, 0xAB, 0x0F}) == "00ab0f");
}

TEST_CASE("file hashing streams the file and reports unreadable files") {
  auto path = std::filesystem::temp_directory_path() /
              ("vyre_sha_test_" + std::to_string(::getpid()) + ".bin");
  std::string content(200000, 'x');
  for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 31 % 251);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  CHECK(vyre::sha256_file_hex(path) == vyre::to_hex(vyre::sha256(std::string_view(content))));
  std::filesystem::remove(path);
  try {
    vyre::sha256_file_hex(path);
    FAIL("hashed a missing file");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_IO);
    CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
  }
}
