// `charter access --format svg` (access_picture.cc): the access path of a
// report as an SVG picture with a legend, drawn by Charter.
#ifndef CHARTER_CLI_ACCESS_PICTURE_H_
#define CHARTER_CLI_ACCESS_PICTURE_H_

#include <string>

#include "charter/governance.h"

namespace charter::cli {

// Principals, the groups they come through and what the connection reaches,
// in columns by their longest path from a principal; memberships dashed,
// grants as arrows labelled with their actions; what a finding names in red;
// the findings listed below.
std::string AccessSvg(const AccessReport& report);

}  // namespace charter::cli

#endif  // CHARTER_CLI_ACCESS_PICTURE_H_
