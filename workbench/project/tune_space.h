//===- workbench/project/tune_space.h - The parameter space of `[tune]` ---===//
//
// What kernel.toml's `[tune]` declares (kernel_toml_tune.cpp reads it): the
// tuned names, each with its values (a list, a range or powers of two) and
// how it reaches the kernel (a compile-time define for CUDA and GLSL, or a
// GLSL specialization constant), and the constraints over them
// (`UNROLL <= TILE_K`, evaluated by declared_expression.h). A configuration
// gives every tuned name one value.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_TUNE_SPACE_H_
#define KB_WORKBENCH_PROJECT_TUNE_SPACE_H_

#include "common/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kb::workbench {

/// How a tuned value reaches the kernel.
enum class TuneApply {
  Define,         // -DNAME=VALUE for every source (nvcc and glslc)
  Specialization, // a SPIR-V specialization constant (GLSL sources only)
};

struct TuneParameter {
  std::string name;
  std::vector<int64_t> values; // in the order declared, no duplicates
  TuneApply apply = TuneApply::Define;
  std::string where; // `kernel.toml:LINE:COL`, for messages
  /// `default = N` (one of |values|): the value `build` gives the sources
  /// without a tuned.toml entry for their backend, and the one [abi]
  /// expressions see then. None: the source's own default (#ifndef), which
  /// no kernel.toml expression may then use.
  std::optional<int64_t> defaultValue;
};

struct TuneConstraint {
  std::string text;  // `UNROLL <= TILE_K`
  std::string where; // `kernel.toml:LINE:COL`
};

/// One configuration: tuned name -> value.
using TuneValues = std::map<std::string, int64_t>;

struct TuneSpace {
  std::vector<TuneParameter> parameters; // sorted by name
  std::vector<TuneConstraint> constraints;

  bool empty() const { return parameters.empty(); }
  const TuneParameter *find(const std::string &name) const;
  /// The number of configurations before the constraints (saturates at
  /// UINT64_MAX).
  uint64_t size() const;
};

/// `NAME=VALUE NAME=VALUE` in name order: a configuration's identity in
/// the tune cache, tune.json and the tables.
std::string configurationKey(const TuneValues &values);

/// Whether |values| satisfies every constraint; an error (the constraint's
/// location and text) when one cannot be evaluated.
StatusOr<bool> satisfiesConstraints(const TuneSpace &space,
                                    const TuneValues &values);

/// The first constraint |values| breaks, null when none; the same error.
StatusOr<const TuneConstraint *>
firstBrokenConstraint(const TuneSpace &space, const TuneValues &values);

/// A check besides the constraints that a configuration must pass to be a
/// candidate (`tune`: its launch shape is valid); its error says why not.
using ConfigurationCheck = std::function<Status(const TuneValues &)>;

/// Every configuration that satisfies the constraints and |check| (when
/// given), in lexicographic order of the parameters' values. The space must
/// be small enough to walk (the caller checks TuneSpace::size()).
/// No configuration satisfies the constraints: an error naming the
/// constraint that rejects every configuration alone, else all of them
/// together; none passes |check|: its first error.
StatusOr<std::vector<TuneValues>>
enumerateConfigurations(const TuneSpace &space,
                        const ConfigurationCheck &check = {});

/// The largest space whose configurations are walked to count those that
/// satisfy the constraints (a walk of this many evaluates each constraint
/// once per configuration, a fraction of a second).
inline constexpr uint64_t kWalkableSpace = 1u << 18;

/// How many configurations of |space| satisfy its constraints (the launch
/// shape unchecked); |space| must be at most kWalkableSpace.
StatusOr<uint64_t> countSatisfying(const TuneSpace &space);

/// Up to |count| distinct configurations that satisfy the constraints and
/// |check|, drawn uniformly from the whole space with |rng| (for spaces
/// too large to enumerate). Fewer when the draws keep hitting rejected or
/// repeated configurations.
StatusOr<std::vector<TuneValues>>
sampleConfigurations(const TuneSpace &space, size_t count, std::mt19937_64 &rng,
                     const ConfigurationCheck &check = {});

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_TUNE_SPACE_H_
