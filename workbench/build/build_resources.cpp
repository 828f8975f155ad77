//===- workbench/build/build_resources.cpp - ptxas figures of a build's ---===//
#include "workbench/build/build_resources.h"

#include "workbench/build/build_record.h"

namespace kb::workbench {

StatusOr<ObjectResources>
readObjectResources(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(BuildRecord record, readBuildRecord(buildJson));
  ObjectResources resources;
  for (const BuildJobRecord &job : record.jobs)
    if (job.resources)
      for (const BuildOutputRecord &output : job.outputs)
        resources[output.sha256] = *job.resources;
  return resources;
}

} // namespace kb::workbench
