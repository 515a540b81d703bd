#include <catch2/catch.hpp>

#include "tracesql/timestamp.h"

using tracesql::MicrosToNanos;
using tracesql::ParseInt64;

TEST_CASE("timestamps: microsecond literals convert exactly to ns", "[timestamp]") {
  CHECK(MicrosToNanos("0") == 0);
  CHECK(MicrosToNanos("5.1") == 5100);
  CHECK(MicrosToNanos("12.34") == 12340);
  CHECK(MicrosToNanos("3.136") == 3136);
  CHECK(MicrosToNanos("68.0") == 68000);
  CHECK(MicrosToNanos("100") == 100000);
  CHECK(MicrosToNanos("-3") == -3000);
  CHECK(MicrosToNanos("-0.5") == -500);
  // 16-digit absolute epoch us with 3 decimals: 19 significant digits, beyond a double.
  CHECK(MicrosToNanos("1712195495519689.047") == 1712195495519689047LL);
  CHECK(MicrosToNanos("1740461679471257") == 1740461679471257000LL);
  CHECK(MicrosToNanos("1419247332972.313") == 1419247332972313LL);
  CHECK(MicrosToNanos("7889238000000.999") == 7889238000000999LL);
}

TEST_CASE("timestamps: sub-ns digits round half to even, exponents work", "[timestamp]") {
  CHECK(MicrosToNanos("0.0004") == 0);
  CHECK(MicrosToNanos("0.0005") == 0);   // half, even stays
  CHECK(MicrosToNanos("0.0015") == 2);   // half, odd rounds up
  CHECK(MicrosToNanos("0.00051") == 1);  // above half
  CHECK(MicrosToNanos("1.2345678") == 1235);
  CHECK(MicrosToNanos("1e3") == 1000000);
  CHECK(MicrosToNanos("1.5E-3") == 2);   // 1.5 ns -> 2 (half to even)
  CHECK(MicrosToNanos("2.5e-3") == 2);
  CHECK(MicrosToNanos("1e-9") == 0);
}

TEST_CASE("timestamps: reject non-numbers and overflow", "[timestamp]") {
  CHECK_FALSE(MicrosToNanos(""));
  CHECK_FALSE(MicrosToNanos("-"));
  CHECK_FALSE(MicrosToNanos("1."));
  CHECK_FALSE(MicrosToNanos(".5"));
  CHECK_FALSE(MicrosToNanos("abc"));
  CHECK_FALSE(MicrosToNanos("1.2.3"));
  CHECK_FALSE(MicrosToNanos("1e"));
  CHECK_FALSE(MicrosToNanos("9223372036854775808"));  // * 1000 overflows
  CHECK_FALSE(MicrosToNanos("1e300"));
  CHECK(MicrosToNanos("9223372036854775.807") == 9223372036854775807LL);
  CHECK_FALSE(MicrosToNanos("9223372036854775.808"));
  CHECK_FALSE(MicrosToNanos("18446744073709551616"));  // beyond uint64 before the shift
  CHECK_FALSE(MicrosToNanos("18446744073709551.616"));
}

TEST_CASE("integers: int64 range exactly", "[timestamp]") {
  CHECK(ParseInt64("0") == 0);
  CHECK(ParseInt64("-549452224") == -549452224);
  CHECK(ParseInt64("1751410836000000000") == 1751410836000000000LL);  // 19-digit base
  CHECK(ParseInt64("9223372036854775807") == INT64_MAX);
  CHECK(ParseInt64("-9223372036854775808") == INT64_MIN);
  CHECK_FALSE(ParseInt64("9223372036854775808"));
  CHECK_FALSE(ParseInt64("10159970886766084423"));  // Comms Id, beyond int64
  CHECK_FALSE(ParseInt64("18446744073709551616"));  // 2^64: the digit loop itself overflows
  CHECK_FALSE(ParseInt64("-99999999999999999999999"));
  CHECK(ParseInt64("-000000000000000000000012") == -12);  // many digits, small value
  CHECK_FALSE(ParseInt64("1.0"));
  CHECK_FALSE(ParseInt64(""));
  CHECK_FALSE(ParseInt64("-"));
}
