//===- runtime/module/inputs.cpp - Seeded buffer initialisation -----------===//
#include "runtime/module/inputs.h"

#include "runtime/module/element_io.h"

#include <cmath>

namespace kb::module {

namespace {
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};
} // namespace

std::vector<uint8_t> generateContents(const BufferDecl &buffer) {
  std::vector<uint8_t> bytes(buffer.byteSize(), 0);
  const InitSpec &init = buffer.init;
  if (init.distribution == Distribution::Zero)
    return bytes;
  uint32_t size = byteSize(buffer.elementType);
  SplitMix64 rng{init.seed};
  const double kTwoPi = 6.283185307179586;
  for (uint64_t i = 0; i < buffer.elementCount; ++i) {
    double v = 0;
    switch (init.distribution) {
    case Distribution::Zero:
      break;
    case Distribution::Uniform:
      v = init.low + (init.high - init.low) * rng.unit();
      break;
    case Distribution::Normal: {
      double u1 = 1.0 - rng.unit(); // (0, 1]: log() stays finite
      double u2 = rng.unit();
      v = init.mean +
          init.stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
      break;
    }
    case Distribution::Range:
      v = init.start + static_cast<double>(i) * init.step;
      break;
    }
    writeElement(buffer.elementType, v, bytes.data() + i * size);
  }
  return bytes;
}

const char *toString(SpecialValues special) {
  switch (special) {
  case SpecialValues::None:
    return "none";
  case SpecialValues::Large:
    return "large";
  case SpecialValues::Nan:
    return "nan";
  case SpecialValues::Inf:
    return "inf";
  }
  return "?";
}

double largeInputFactor(ElementType type) {
  return type == ElementType::F16 ? 16.0 : 1048576.0;
}

void applySpecialValues(ElementType type, SpecialValues special,
                        std::vector<uint8_t> &bytes) {
  if (special == SpecialValues::None || !isFloat(type))
    return;
  uint32_t size = byteSize(type);
  uint64_t count = bytes.size() / size;
  double factor = largeInputFactor(type);
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t *element = bytes.data() + i * size;
    if (special == SpecialValues::Large) {
      writeElement(type, readElement(type, element) * factor, element);
      continue;
    }
    if (i % 16 != 3)
      continue;
    double value = special == SpecialValues::Nan ? std::nan("")
                   : (i / 16) % 2 == 0           ? INFINITY
                                                 : -INFINITY;
    writeElement(type, value, element);
  }
}

} // namespace kb::module
