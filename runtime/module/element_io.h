//===- runtime/module/element_io.h - Buffer elements as doubles -----------===//
//
// Reading and writing one element of any kb::ElementType through a double:
// what the input generator and the output comparison share. f16 and bf16 are
// converted with round-to-nearest-even; integers are rounded toward zero
// and clamped to the type's range (NaN becomes 0).
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_ELEMENT_IO_H_
#define KB_RUNTIME_MODULE_ELEMENT_IO_H_

#include "common/kernel_abi.h"

#include <cstdint>

namespace kb::module {

double readElement(ElementType type, const uint8_t *data);
void writeElement(ElementType type, double value, uint8_t *data);
bool isFloat(ElementType type);

uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);
float bfloat16ToFloat(uint16_t bits);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_ELEMENT_IO_H_
