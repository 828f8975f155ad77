//===- workbench/project/tune_space.cpp - The parameter space of `[tune]` -===//
#include "workbench/project/tune_space.h"

#include "workbench/project/declared_expression.h"

#include <limits>
#include <set>

namespace kb::workbench {

namespace {

std::map<std::string, double> namesOf(const TuneValues &values) {
  std::map<std::string, double> names;
  for (const auto &[name, value] : values)
    names[name] = static_cast<double>(value);
  return names;
}

/// The configuration at mixed-radix |index| (the last parameter varies
/// fastest).
TuneValues configurationAt(const TuneSpace &space, uint64_t index) {
  TuneValues values;
  for (size_t i = space.parameters.size(); i-- > 0;) {
    const TuneParameter &p = space.parameters[i];
    values[p.name] = p.values[index % p.values.size()];
    index /= p.values.size();
  }
  return values;
}

/// The error for an empty result: the first constraint that alone rejects
/// every configuration, else the set of them.
Status nothingSatisfies(const TuneSpace &space) {
  for (const TuneConstraint &c : space.constraints) {
    bool any = false;
    for (uint64_t i = 0; i < space.size() && !any; ++i) {
      StatusOr<bool> ok =
          evaluateCondition(c.text, namesOf(configurationAt(space, i)));
      any = ok.ok() && *ok;
    }
    if (!any)
      return invalidArgument(
          c.where + ": constraint `" + c.text + "` holds for none of the " +
          std::to_string(space.size()) +
          " configurations of [tune]: widen the parameters' values or "
          "change the constraint");
  }
  std::string texts;
  for (const TuneConstraint &c : space.constraints)
    texts += (texts.empty() ? "`" : ", `") + c.text + "` (" + c.where + ")";
  return invalidArgument("no configuration of [tune] satisfies the "
                         "constraints together: " +
                         texts + "; each holds for some, never all at once");
}

} // namespace

const TuneParameter *TuneSpace::find(const std::string &name) const {
  for (const TuneParameter &p : parameters)
    if (p.name == name)
      return &p;
  return nullptr;
}

uint64_t TuneSpace::size() const {
  if (parameters.empty())
    return 0;
  uint64_t n = 1;
  for (const TuneParameter &p : parameters) {
    if (p.values.size() &&
        n > std::numeric_limits<uint64_t>::max() / p.values.size())
      return std::numeric_limits<uint64_t>::max();
    n *= p.values.size();
  }
  return n;
}

std::string configurationKey(const TuneValues &values) {
  std::string key;
  for (const auto &[name, value] : values)
    key += (key.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return key;
}

StatusOr<const TuneConstraint *>
firstBrokenConstraint(const TuneSpace &space, const TuneValues &values) {
  std::map<std::string, double> names = namesOf(values);
  for (const TuneConstraint &c : space.constraints) {
    StatusOr<bool> ok = evaluateCondition(c.text, names);
    if (!ok.ok())
      return invalidArgument(c.where +
                             ": constraint: " + ok.status().message());
    if (!*ok)
      return &c;
  }
  return nullptr;
}

StatusOr<bool> satisfiesConstraints(const TuneSpace &space,
                                    const TuneValues &values) {
  KB_ASSIGN_OR_RETURN(const TuneConstraint *broken,
                      firstBrokenConstraint(space, values));
  return broken == nullptr;
}

namespace {

/// Whether |values| is a candidate: the constraints hold and |check| (when
/// given) passes; its first failure is kept in |firstRejection|.
StatusOr<bool> isCandidate(const TuneSpace &space, const TuneValues &values,
                           const ConfigurationCheck &check,
                           std::optional<Status> &firstRejection) {
  KB_ASSIGN_OR_RETURN(bool ok, satisfiesConstraints(space, values));
  if (!ok || !check)
    return ok;
  Status status = check(values);
  if (!status.ok() && !firstRejection)
    firstRejection =
        invalidArgument(configurationKey(values) + ": " + status.message());
  return status.ok();
}

} // namespace

StatusOr<std::vector<TuneValues>>
enumerateConfigurations(const TuneSpace &space,
                        const ConfigurationCheck &check) {
  std::vector<TuneValues> result;
  std::optional<Status> rejected;
  for (uint64_t i = 0; i < space.size(); ++i) {
    TuneValues values = configurationAt(space, i);
    KB_ASSIGN_OR_RETURN(bool ok, isCandidate(space, values, check, rejected));
    if (ok)
      result.push_back(std::move(values));
  }
  if (result.empty() && !space.empty())
    return rejected ? invalidArgument("no configuration that satisfies the "
                                      "constraints can be launched; the "
                                      "first: " +
                                      rejected->message())
                    : nothingSatisfies(space);
  return result;
}

StatusOr<uint64_t> countSatisfying(const TuneSpace &space) {
  uint64_t count = 0;
  for (uint64_t i = 0; i < space.size(); ++i) {
    KB_ASSIGN_OR_RETURN(bool ok,
                        satisfiesConstraints(space, configurationAt(space, i)));
    count += ok;
  }
  return count;
}

StatusOr<std::vector<TuneValues>>
sampleConfigurations(const TuneSpace &space, size_t count, std::mt19937_64 &rng,
                     const ConfigurationCheck &check) {
  std::vector<TuneValues> result;
  std::set<uint64_t> seen;
  std::optional<Status> rejected;
  const uint64_t size = space.size();
  // Bounded: a space whose constraints reject nearly everything gives fewer.
  for (size_t attempt = 0;
       result.size() < count && attempt < 100 * count + 1000; ++attempt) {
    uint64_t index = std::uniform_int_distribution<uint64_t>(0, size - 1)(rng);
    if (!seen.insert(index).second)
      continue;
    TuneValues values = configurationAt(space, index);
    KB_ASSIGN_OR_RETURN(bool ok, isCandidate(space, values, check, rejected));
    if (ok)
      result.push_back(std::move(values));
  }
  return result;
}

} // namespace kb::workbench
