// An object's CREATE as an AdmissionReview (object_review.h).
#include "object_review.h"

#include <openssl/evp.h>

#include <cctype>
#include <string>
#include <string_view>

#include "charter_support/strings.h"
#include "json_write.h"

namespace charter::server {

using support::Cat;
using support::S;

std::string ResourceOf(std::string_view kind) {
  std::string r;
  for (char c : kind) r.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (r.empty()) return r;
  auto ends = [&](std::string_view tail) { return r.size() >= tail.size() && r.compare(r.size() - tail.size(), tail.size(), tail) == 0; };
  // As the apiserver's default plural (k8s.io/apimachinery's
  // UnsafeGuessKindToResource).
  if (ends("s") || ends("x") || ends("z") || ends("ch") || ends("sh")) return r + "es";
  if (ends("y") && r.size() > 1 && std::string_view("aeiou").find(r[r.size() - 2]) == std::string_view::npos) {
    return r.substr(0, r.size() - 1) + "ies";
  }
  return r + "s";
}

std::string ObjectUid(std::string_view json, size_t index) {
  std::string input = Cat(index, ":", S(json));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(input.data(), input.size(), digest, &n, EVP_sha256(), nullptr);
  // A UUID of version 8 (custom) and the RFC 4122 variant.
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0f) | 0x80);
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string uid;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) uid.push_back('-');
    uid.push_back(kHex[digest[i] >> 4]);
    uid.push_back(kHex[digest[i] & 15]);
  }
  return uid;
}

std::string CreateReviewFor(std::string_view object_json, const ObjectRef& ref, const Requester& who,
                            std::string_view uid) {
  std::string gvk = Cat("{\"group\":", Quoted(ref.group), ",\"version\":", Quoted(ref.version),
                        ",\"kind\":", Quoted(ref.kind), "}");
  std::string gvr = Cat("{\"group\":", Quoted(ref.group), ",\"version\":", Quoted(ref.version),
                        ",\"resource\":", Quoted(ResourceOf(ref.kind)), "}");
  std::string groups;
  for (const std::string& g : who.groups) groups += Cat(groups.empty() ? "" : ",", Quoted(g));
  return Cat("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":", Quoted(uid),
             ",\"kind\":", gvk, ",\"resource\":", gvr, ",\"requestKind\":", gvk, ",\"requestResource\":", gvr,
             ",\"name\":", Quoted(ref.name), ",\"namespace\":", Quoted(ref.namespace_name),
             ",\"operation\":\"CREATE\",\"userInfo\":{\"username\":", Quoted(who.username), ",\"groups\":[", groups,
             "]},\"object\":", S(object_json),
             ",\"oldObject\":null,\"dryRun\":false,\"options\":{\"kind\":\"CreateOptions\",\"apiVersion\":"
             "\"meta.k8s.io/v1\"}}}");
}

}  // namespace charter::server
