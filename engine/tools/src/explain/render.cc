// Explanation and Coverage rendered: JSON for tools, text for people, with
// the source lines of deciding conditions underlined as diagnostics are
// (common/snippet.h).
#include "charter/explain.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "common/snippet.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "explain/source_text.h"
#include "json/json.h"

namespace charter {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::TextOf;

// ---------------------------------------------------------------- JSON

const char* OutcomeName(PolicyOutcome o) {
  switch (o) {
    case PolicyOutcome::kSatisfied: return "satisfied";
    case PolicyOutcome::kNotSatisfied: return "not-satisfied";
    case PolicyOutcome::kErrored: return "error";
    case PolicyOutcome::kNotApplicable: return "not-applicable";
  }
  return "?";
}

void Key(std::string* out, std::string_view key, std::string_view value) {
  CatAppend(out, ",\"", key, "\":");
  internal::json::AppendQuoted(out, value);
}

void Where(std::string* out, const SourceRange& r) {
  CatAppend(out, ",\"line\":", r.line, ",\"column\":", r.column);
}

}  // namespace

std::string Explanation::ToJson() const {
  std::string out = decision.ToJson();
  out.pop_back();  // the closing brace
  out += ",\"policies\":[";
  for (size_t i = 0; i < policies.size(); ++i) {
    const PolicyExplanation& p = policies[i];
    out += i == 0 ? "{\"id\":" : ",{\"id\":";
    internal::json::AppendQuoted(&out, p.policy_id);
    Key(&out, "effect", p.forbid ? "forbid" : "permit");
    if (!p.template_id.empty()) Key(&out, "template", p.template_id);
    Key(&out, "outcome", OutcomeName(p.outcome));
    CatAppend(&out, ",\"determining\":", p.determining ? "true" : "false", ",\"source\":", p.source);
    Where(&out, p.where);
    if (p.outcome == PolicyOutcome::kNotApplicable) Key(&out, "scope", p.scope);
    if (p.clause >= 0) {
      CatAppend(&out, ",\"clause\":{\"kind\":\"", p.clause_when ? "when" : "unless",
                "\",\"index\":", p.clause);
      Where(&out, p.clause_where);
      out += "}";
    }
    if (p.outcome == PolicyOutcome::kErrored) Key(&out, "error", p.error);
    out += ",\"conditions\":[";
    for (size_t k = 0; k < p.conditions.size(); ++k) {
      const ExplainedCondition& c = p.conditions[k];
      out += k == 0 ? "{\"expression\":" : ",{\"expression\":";
      internal::json::AppendQuoted(&out, c.expression);
      Key(&out, "value", c.value);
      Where(&out, c.where);
      out += ",\"saw\":[";
      for (size_t v = 0; v < c.saw.size(); ++v) {
        out += v == 0 ? "{\"expression\":" : ",{\"expression\":";
        internal::json::AppendQuoted(&out, c.saw[v].expression);
        Key(&out, "value", c.saw[v].value);
        out += "}";
      }
      out += "]}";
    }
    out += "]";
    if (p.more_conditions > 0) CatAppend(&out, ",\"more_conditions\":", p.more_conditions);
    out += "}";
  }
  out += "]}";
  return out;
}

// ---------------------------------------------------------------- text

namespace {

struct Style {
  const char* bold;
  const char* red;
  const char* green;
  const char* blue;
  const char* reset;
};

// At most `max` scalar values, with an ellipsis when cut.
std::string Clip(std::string_view s, size_t max = 120) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (count++ == max) return Cat(s.substr(0, i), "…");
  }
  return std::string(s);
}

// The source lines of `span` (at most six) with their part of it underlined,
// and a label after the underline, as Diagnostics::Render shows them:
//   --> policies.cedar:38:8
//    |
// 38 | when { resource.owner == principal };
//    |        ^^^^^^^^^^^^^^ false
// Returns the width of the line-number column.
size_t Snippet(std::string* out, const SourceFile& source, Span span, std::string_view label,
               const char* mark, const Style& s) {
  std::string clipped = Clip(label, 200);
  internal::SnippetStyle style;
  style.max_lines = 6;
  style.location = true;
  style.label = clipped;
  style.gutter = s.blue;
  style.mark = mark;
  style.reset = s.reset;
  style.colour_blanks = false;
  // An empty span is underlined at its first column.
  Span shown{span.begin, span.end > span.begin ? span.end : span.begin + 1};
  return internal::AppendSnippet(out, source, shown, style);
}

// The values a condition saw, below its snippet, in a gutter `width` wide.
void Values(std::string* out, const ExplainedCondition& c, size_t width, const Style& s) {
  std::string pad(width, ' ');
  for (const ExplainedValue& v : c.saw) {
    CatAppend(out, pad, " ", s.blue, "=", s.reset, " ", Clip(internal::EscapeControls(v.expression), 60), " is ",
              Clip(internal::EscapeControls(v.value)), "\n");
  }
}

}  // namespace

std::string Explanation::ToText(const SourceFile& source, bool color) const {
  // (A copy of the text: one source is the several-sources case.)
  return ToText(std::vector<SourceFile>{source}, color);
}

std::string Explanation::ToText(const std::vector<SourceFile>& sources, bool color) const {
  // The text of a policy's source; an Explanation made over other sources
  // than these (an index past them) shows its places without their lines.
  const SourceFile none("", "");
  auto source_of = [&](const PolicyExplanation& p) -> const SourceFile& {
    return p.source < sources.size() ? sources[p.source] : none;
  };
  Style s = color ? Style{"\x1b[1m", "\x1b[1;31m", "\x1b[1;32m", "\x1b[1;34m", "\x1b[0m"}
                  : Style{"", "", "", "", ""};
  std::string out;
  auto names = [](const std::vector<std::string>& ids) {
    std::string list;
    for (size_t i = 0; i < ids.size(); ++i) {
      CatAppend(&list, i == 0 ? "" : ", ", "`", internal::EscapeControls(ids[i]), "`");
    }
    return list;
  };
  bool forbidden = false;
  for (const PolicyExplanation& p : policies) forbidden = forbidden || (p.determining && p.forbid);
  if (decision.allowed) {
    CatAppend(&out, s.bold, s.green, "ALLOW", s.reset, s.bold, ": permitted by ", names(decision.reasons),
              s.reset, "\n");
  } else if (forbidden) {
    CatAppend(&out, s.bold, s.red, "DENY", s.reset, s.bold, ": forbidden by ", names(decision.reasons),
              s.reset, "\n");
  } else {
    CatAppend(&out, s.bold, s.red, "DENY", s.reset, s.bold, ": no permit is satisfied (deny by default)",
              s.reset, "\n");
  }
  if (!decision.errors.empty()) {
    std::vector<std::string> ids;
    for (const PolicyError& e : decision.errors) ids.push_back(e.policy_id);
    CatAppend(&out, "skipped because evaluating them failed: ", names(ids), "\n");
  }

  std::vector<const PolicyExplanation*> inapplicable;
  for (const PolicyExplanation& p : policies) {
    if (p.outcome == PolicyOutcome::kNotApplicable) {
      inapplicable.push_back(&p);
      continue;
    }
    // Ids, attribute names and values come from the input: their control
    // characters are escaped (issue 15), never sent to a terminal.
    std::string name = Cat(p.forbid ? "forbid" : "permit", " `", internal::EscapeControls(p.policy_id), "`");
    if (!p.template_id.empty()) {
      CatAppend(&name, " (linked from template `", internal::EscapeControls(p.template_id), "`)");
    }
    std::string clause = Cat("its `", p.clause_when ? "when" : "unless", "` clause");
    std::string verdict;
    switch (p.outcome) {
      case PolicyOutcome::kSatisfied:
        verdict = p.determining ? (p.forbid ? "is satisfied: it denies the request"
                                            : "is satisfied: it allows the request")
                                : (p.forbid ? "is satisfied"
                                            : "is satisfied, but a satisfied forbid overrides it");
        break;
      case PolicyOutcome::kNotSatisfied:
        verdict = Cat("is not satisfied: ", clause, " is ", p.clause_when ? "false" : "true");
        break;
      case PolicyOutcome::kErrored:
        verdict = Cat("was skipped: evaluating ", clause, " failed");
        break;
      case PolicyOutcome::kNotApplicable: break;
    }
    CatAppend(&out, "\n", s.bold, name, " ", verdict, s.reset, "\n");
    const SourceFile& source = source_of(p);
    if (p.conditions.empty()) {
      Snippet(&out, source, p.where.span,
              "its scope matches and it has no conditions", s.green, s);
    }
    for (const ExplainedCondition& c : p.conditions) {
      bool error = p.outcome == PolicyOutcome::kErrored;
      std::string label = internal::EscapeControls(error ? p.error : c.value);
      const char* mark = error || c.value == "false" ? s.red : s.green;
      size_t width = Snippet(&out, source, c.where.span, label, mark, s);
      Values(&out, c, width, s);
    }
    if (p.more_conditions > 0) CatAppend(&out, "   (and ", p.more_conditions, " more conditions)\n");
  }
  if (!inapplicable.empty()) {
    CatAppend(&out, "\n", s.bold, "not applicable (the scope does not match):", s.reset, "\n");
    for (const PolicyExplanation* p : inapplicable) {
      const SourceFile& source = source_of(*p);
      CatAppend(&out, "  ", internal::EscapeControls(p->policy_id), ": `",
                Clip(internal::EscapeControls(TextOf(source, p->scope_where.span)), 80), "` (",
                source.name(), ":", p->scope_where.line, ":", p->scope_where.column, ")\n");
    }
  }
  return out;
}

// ---------------------------------------------------------------- coverage

namespace {

// "line":…,"column":…,"expression":…,"true":…,"false":…,"errors":…,"covered":…
void AppendCounts(std::string* out, const ConditionCoverage& c) {
  CatAppend(out, "\"line\":", c.where.line, ",\"column\":", c.where.column, ",\"expression\":");
  internal::json::AppendQuoted(out, c.expression);
  CatAppend(out, ",\"true\":", c.true_count, ",\"false\":", c.false_count, ",\"errors\":", c.error_count,
            ",\"covered\":", c.covered() ? "true" : "false");
}

}  // namespace

std::string Coverage::ToJson() const {
  std::string out = Cat("{\"requests\":", requests(), ",\"policies\":[");
  for (size_t i = 0; i < policies().size(); ++i) {
    const PolicyCoverage& p = policies()[i];
    out += i == 0 ? "{\"id\":" : ",{\"id\":";
    internal::json::AppendQuoted(&out, p.policy_id);
    Key(&out, "effect", p.forbid ? "forbid" : "permit");
    if (!p.template_id.empty()) Key(&out, "template", p.template_id);
    Where(&out, p.where);
    CatAppend(&out, ",\"applicable\":", p.applicable, ",\"satisfied\":", p.satisfied,
              ",\"determining\":", p.determining, ",\"errors\":", p.errored,
              ",\"exercised\":", p.exercised() ? "true" : "false", ",\"clauses\":[");
    for (size_t k = 0; k < p.clauses.size(); ++k) {
      const ClauseCoverage& c = p.clauses[k];
      CatAppend(&out, k == 0 ? "" : ",", "{\"kind\":\"", c.when ? "when" : "unless", "\",\"index\":", k, ",");
      AppendCounts(&out, c.condition);
      out += ",\"conditions\":[";
      for (size_t j = 0; j < c.conditions.size(); ++j) {
        out += j == 0 ? "{" : ",{";
        AppendCounts(&out, c.conditions[j]);
        out += "}";
      }
      out += "]}";
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

}  // namespace charter
