// Readers and writers of the two schema formats, over SchemaAst.
#ifndef CHARTER_SCHEMA_SCHEMA_PARSE_H_
#define CHARTER_SCHEMA_SCHEMA_PARSE_H_

#include <string>

#include "charter/diagnostics.h"
#include "charter/schema.h"
#include "schema/schema_ast.h"

namespace charter::internal::schema {

// Cedar's schema text (`namespace NS { entity User in [Group] {...}; ... }`).
// Stops at the first syntax error (CH0401, CH0402); duplicate names and other
// faults that need the whole tree are found by Resolve().
SchemaAst ParseSchemaText(const SourceFile& source, const SchemaOptions& options,
                          Diagnostics* diagnostics);

// Cedar's JSON schema format (CH0411 for malformed JSON, CH0410 for a
// document of the wrong shape).
SchemaAst ParseSchemaJson(const SourceFile& source, const SchemaOptions& options,
                          Diagnostics* diagnostics);

std::string PrintSchemaText(const SchemaAst& schema);
std::string PrintSchemaJson(const SchemaAst& schema);

// Cedar's quoting of a string literal: `"` and `\` escaped, control
// characters as \n, \r, \t, \0 or \u{..}.
std::string QuoteCedar(std::string_view s);

}  // namespace charter::internal::schema

#endif  // CHARTER_SCHEMA_SCHEMA_PARSE_H_
