// A main() for fuzz targets built without libFuzzer: feeds every file named
// on the command line, and every file under every directory named there, to
// LLVMFuzzerTestOneInput once, in sorted order. ctest runs each target this
// way over its seed corpus, so the corpora are regression tests on any
// compiler. Exits 1 if an argument cannot be read or no input was found.
//
//   json_replay fuzz/corpus/json [more files or directories...]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// Collects the regular files at `path` (itself, or everything below it).
bool Collect(const fs::path& path, std::vector<fs::path>* files) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    files->push_back(path);
    return true;
  }
  if (!fs::is_directory(path, ec)) {
    std::fprintf(stderr, "replay: %s: no such file or directory\n", path.c_str());
    return false;
  }
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files->push_back(it->path());
  }
  if (ec) {
    std::fprintf(stderr, "replay: %s: %s\n", path.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

bool ReadFile(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 1;
  }
  std::vector<fs::path> files;
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = Collect(argv[i], &files) && ok;
  std::sort(files.begin(), files.end());

  size_t ran = 0;
  std::string contents;
  for (const fs::path& file : files) {
    if (!ReadFile(file, &contents)) {
      std::fprintf(stderr, "replay: %s: cannot read\n", file.c_str());
      ok = false;
      continue;
    }
    // An exactly-sized copy, so that AddressSanitizer sees any read past the end.
    std::unique_ptr<uint8_t[]> data(new uint8_t[contents.size() + (contents.empty() ? 1 : 0)]);
    std::copy(contents.begin(), contents.end(), data.get());
    LLVMFuzzerTestOneInput(data.get(), contents.size());
    ++ran;
  }
  std::printf("replay: ran %zu inputs\n", ran);
  if (ran == 0) {
    std::fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  return ok ? 0 : 1;
}
