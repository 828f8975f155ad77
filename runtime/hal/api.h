//===- runtime/hal/api.h - The HAL in one include -------------------------===//
#ifndef KB_RUNTIME_HAL_API_H_
#define KB_RUNTIME_HAL_API_H_

#include "runtime/hal/buffer.h"
#include "runtime/hal/command_buffer.h"
#include "runtime/hal/counters.h"
#include "runtime/hal/device.h"
#include "runtime/hal/driver.h"
#include "runtime/hal/driver_registry.h"
#include "runtime/hal/executable.h"
#include "runtime/hal/timer.h"

#endif // KB_RUNTIME_HAL_API_H_
