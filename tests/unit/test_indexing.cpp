// course/indexing.hpp: the launchers' overlap check, on buffers that touch, overlap by a byte,
// hold each other, or are empty.
#include <cstdint>

#include "course/indexing.hpp"
#include "course/testing.hpp"

TEST_SUITE("cpu") {
  TEST_CASE("indexing: two buffers overlap when they share a byte, and only then") {
    alignas(16) float floats[16] = {};
    CHECK_FALSE(course::overlap(floats, floats + 4, 4));  // adjacent
    CHECK(course::overlap(floats, floats + 3, 4));        // one element shared
    CHECK(course::overlap(floats, 16, floats + 5, 2));    // one inside the other
    CHECK_FALSE(course::overlap(floats, 0, floats, 4));   // an empty buffer overlaps nothing
    // Element types may differ: 4 floats are 16 bytes; a 2-byte type from byte 14 on shares one.
    const auto* halves = reinterpret_cast<const std::uint16_t*>(floats);
    CHECK(course::overlap(floats, 4, halves + 7, 1));
    CHECK_FALSE(course::overlap(floats, 4, halves + 8, 1));
  }

  TEST_CASE("indexing: row-major elements, blocks that cover an extent, 16-byte alignment") {
    CHECK(course::at(2, 3, 10) == 23);
    CHECK(course::at(65536, 0, 65536) == std::size_t{1} << 32);  // no 32-bit overflow
    CHECK(course::blocks_for(64, 32) == 2);
    CHECK(course::blocks_for(65, 32) == 3);
    alignas(16) float floats[8] = {};
    CHECK(course::aligned16(floats));
    CHECK_FALSE(course::aligned16(floats + 1));
  }
}
