// Writing YAML scalars: plain where Kubernetes' YAML reader reads them back
// as the same string, double-quoted otherwise.
#ifndef CHARTER_KUEUE_YAML_OUT_H_
#define CHARTER_KUEUE_YAML_OUT_H_

#include <string>
#include <string_view>

namespace charter::internal::kueue {

// `s` as a YAML scalar that reads back as the string `s`.
std::string YamlScalar(std::string_view s);

// A fair-sharing weight as a Kubernetes quantity: "1", "500m", "0.333333333".
std::string FormatWeight(double w);

}  // namespace charter::internal::kueue

#endif  // CHARTER_KUEUE_YAML_OUT_H_
