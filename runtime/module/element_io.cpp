//===- runtime/module/element_io.cpp - Buffer elements as doubles ---------===//
#include "runtime/module/element_io.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kb::module {

uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) // inf / nan (keep a quiet nan)
    return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) { // subnormal or zero
    if (e < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the right rounding
  return static_cast<uint16_t>(half);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
          ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000 | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t floatToBfloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40); // quiet nan
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t x = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

bool isFloat(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16 ||
         type == ElementType::F32 || type == ElementType::F64;
}

namespace {
template <typename T> T clampTo(double v) {
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  if (v <= static_cast<double>(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  // 2^63 and 2^64 are exact doubles; compare against them, not max().
  if (v >= std::ldexp(1.0, std::numeric_limits<T>::digits))
    return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}
template <typename T> double load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}
template <typename T> void store(T v, uint8_t *p) {
  std::memcpy(p, &v, sizeof(T));
}
} // namespace

double readElement(ElementType type, const uint8_t *p) {
  switch (type) {
  case ElementType::I8:
    return load<int8_t>(p);
  case ElementType::U8:
    return load<uint8_t>(p);
  case ElementType::I16:
    return load<int16_t>(p);
  case ElementType::U16:
    return load<uint16_t>(p);
  case ElementType::I32:
    return load<int32_t>(p);
  case ElementType::U32:
    return load<uint32_t>(p);
  case ElementType::I64:
    return load<int64_t>(p);
  case ElementType::U64:
    return load<uint64_t>(p);
  case ElementType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case ElementType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bfloat16ToFloat(h);
  }
  case ElementType::F32:
    return load<float>(p);
  case ElementType::F64:
    return load<double>(p);
  }
  return 0;
}

void writeElement(ElementType type, double v, uint8_t *p) {
  switch (type) {
  case ElementType::I8:
    return store(clampTo<int8_t>(v), p);
  case ElementType::U8:
    return store(clampTo<uint8_t>(v), p);
  case ElementType::I16:
    return store(clampTo<int16_t>(v), p);
  case ElementType::U16:
    return store(clampTo<uint16_t>(v), p);
  case ElementType::I32:
    return store(clampTo<int32_t>(v), p);
  case ElementType::U32:
    return store(clampTo<uint32_t>(v), p);
  case ElementType::I64:
    return store(clampTo<int64_t>(v), p);
  case ElementType::U64:
    return store(clampTo<uint64_t>(v), p);
  case ElementType::F16:
    return store(floatToHalf(static_cast<float>(v)), p);
  case ElementType::BF16:
    return store(floatToBfloat16(static_cast<float>(v)), p);
  case ElementType::F32:
    return store(static_cast<float>(v), p);
  case ElementType::F64:
    return store(v, p);
  }
}

} // namespace kb::module
