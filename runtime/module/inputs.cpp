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

/// The |i|th value of |init|'s distribution, drawing from |rng|.
double draw(const InitSpec &init, uint64_t i, SplitMix64 &rng) {
  const double kTwoPi = 6.283185307179586;
  switch (init.distribution) {
  case Distribution::Zero:
    return 0;
  case Distribution::Uniform:
    return init.low + (init.high - init.low) * rng.unit();
  case Distribution::Normal: {
    double u1 = 1.0 - rng.unit(); // (0, 1]: log() stays finite
    double u2 = rng.unit();
    return init.mean +
           init.stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }
  case Distribution::Range:
    return init.start + static_cast<double>(i) * init.step;
  }
  return 0;
}

/// |buffer|'s struct elements member by member: every component of every
/// member drawn in turn as the member's type (a Range counts components,
/// so consecutive values stay distinct), the padding between them zero.
void generateStructs(const BufferDecl &buffer, const StructLayout &layout,
                     std::vector<uint8_t> &bytes) {
  SplitMix64 rng{buffer.init.seed};
  uint64_t count = bytes.size() / layout.stride, drawn = 0;
  for (uint64_t e = 0; e < count; ++e) {
    uint8_t *element = bytes.data() + e * layout.stride;
    for (const StructMember &m : layout.members) {
      uint32_t size = byteSize(m.type);
      for (uint32_t k = 0; k < m.count; ++k)
        for (uint32_t c = 0; c < m.components; ++c)
          writeElement(m.type, draw(buffer.init, drawn++, rng),
                       element + m.offset + k * m.arrayStride + c * size);
    }
  }
}
} // namespace

std::vector<uint8_t> generateContents(const BufferDecl &buffer) {
  std::vector<uint8_t> bytes(buffer.byteSize(), 0);
  const InitSpec &init = buffer.init;
  if (init.distribution == Distribution::Zero)
    return bytes;
  if (buffer.structLayout && buffer.structLayout->stride) {
    generateStructs(buffer, *buffer.structLayout, bytes);
    return bytes;
  }
  uint32_t size = byteSize(buffer.elementType);
  SplitMix64 rng{init.seed};
  for (uint64_t i = 0; i < buffer.elementCount; ++i)
    writeElement(buffer.elementType, draw(init, i, rng),
                 bytes.data() + i * size);
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
