//===- runtime/testing/module_writer.h - Build .kbm files for tests -------===//
//
// Serializes the loader's own model (runtime/module/module.h) back into a
// .kbm with the FlatBuffers builder, so tests can write any module (valid or
// deliberately wrong) and check parse(write(m)). Test-only: the compiler
// has its own writer over the same schema.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_TESTING_MODULE_WRITER_H_
#define KB_RUNTIME_TESTING_MODULE_WRITER_H_

#include "common/status.h"
#include "runtime/module/module.h"

#include <string>

namespace kb::testing {

struct WriteOptions {
  /// Write dispatch constants as typed ConstantValues (true) or as the raw
  /// packed block (false).
  bool typedConstants = true;
  /// Overrides Module::schemaVersion when non-zero.
  uint32_t schemaVersion = 0;
};

/// The .kbm bytes of |module|. Writes what it is given, including invalid
/// indices, so that loader error paths can be tested.
std::string writeModule(const module::Module &module,
                        const WriteOptions &options = {});

/// Writes |bytes| to |path| (creating parent directories).
Status writeFile(const std::string &path, const std::string &bytes);

} // namespace kb::testing

#endif // KB_RUNTIME_TESTING_MODULE_WRITER_H_
