#include "check/benchmark_functions.h"

#include <map>
#include <string>
#include <utility>

#include "check/generator.h"

namespace regalloc {

const Function& BenchmarkFunction(int insts, const Target& target) {
  static auto* cache = new std::map<std::pair<int, std::string>, Function>();
  auto key = std::make_pair(insts, std::string(target.name()));
  auto it = cache->find(key);
  if (it == cache->end()) {
    GeneratorOptions opts;
    opts.num_insts = insts;
    opts.long_lived = 200;
    it = cache->emplace(key, Generate(1, opts, target).value()).first;
  }
  return it->second;
}

}  // namespace regalloc
