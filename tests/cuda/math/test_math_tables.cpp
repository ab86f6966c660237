// The table of 2/pi bits used by the Payne-Hanek reduction, recomputed with GMP: pi from Machin's
// formula in fixed point, then floor(2^(64 n) * 2/pi) compared word by word.
#include <doctest/doctest.h>
#include <gmp.h>

#include <cstdint>

#include "math/data_tables.hpp"

namespace {

// atan(1/n) * 2^bits, truncated (the error is a few units; bits carries ample guard bits).
void atan_inverse(mpz_t out, unsigned long n, unsigned long bits) {
  mpz_t term, sum, power;
  mpz_inits(term, sum, power, nullptr);
  mpz_set_ui(power, 1);
  mpz_mul_2exp(power, power, bits);
  mpz_tdiv_q_ui(power, power, n);  // 2^bits / n
  mpz_set_ui(sum, 0);
  for (unsigned long k = 0; mpz_sgn(power) != 0; ++k) {
    mpz_tdiv_q_ui(term, power, 2 * k + 1);
    if (k % 2 == 0) {
      mpz_add(sum, sum, term);
    } else {
      mpz_sub(sum, sum, term);
    }
    mpz_tdiv_q_ui(power, power, n * n);
  }
  mpz_set(out, sum);
  mpz_clears(term, sum, power, nullptr);
}

}  // namespace

TEST_CASE("the 2/pi table holds the bits of 2/pi") {
  const auto& table = vyre::math::two_over_pi_table();
  const unsigned long words = table.words.size() - 1;  // word 0 is padding
  const unsigned long guard = 64;
  const unsigned long bits = 64 * words + guard;
  mpz_t pi, a, b, q;
  mpz_inits(pi, a, b, q, nullptr);
  atan_inverse(a, 5, bits);
  atan_inverse(b, 239, bits);
  mpz_mul_ui(pi, a, 16);
  mpz_submul_ui(pi, b, 4);  // pi * 2^bits
  // 2/pi * 2^(64 words) = 2^(64 words + bits + 1) / (pi * 2^bits)
  mpz_set_ui(q, 1);
  mpz_mul_2exp(q, q, 64 * words + bits + 1);
  mpz_tdiv_q(q, q, pi);
  CHECK(table.words[0] == 0);
  for (unsigned long i = words; i >= 1; --i) {
    const std::uint64_t expected = mpz_get_ui(q);  // low 64 bits (unsigned long is 64-bit)
    INFO("word " << i);
    CHECK(table.words[i] == expected);
    mpz_tdiv_q_2exp(q, q, 64);
  }
  CHECK(mpz_sgn(q) == 0);  // 2/pi < 1: nothing above the first word
  mpz_clears(pi, a, b, q, nullptr);
}
