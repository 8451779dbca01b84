// How `charter prove` prints an answer, shared with `charter test`, which
// proves a test file's invariants with the same prover (docs/testing.md,
// "Invariants").
#ifndef CHARTER_CLI_PROVE_H_
#define CHARTER_CLI_PROVE_H_

#include <string>

#include "charter/prove.h"

namespace charter::cli {

// One answer as text: `[policy P: ]SIGNATURE: RESULT (REASON)` and its
// counterexamples (request, entities, decision), each line ending in "\n";
// every line but the first starts with `indent`.
std::string ProofAnswerText(const ProofAnswer& a, const std::string& indent = "");
// One answer as a JSON object (no newline).
std::string ProofAnswerJson(const ProofAnswer& a);

}  // namespace charter::cli

#endif  // CHARTER_CLI_PROVE_H_
