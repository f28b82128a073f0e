#include "check/benchmark_functions.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "check/generator.h"
#include "ssa/legalize.h"
#include "ssa/parser.h"
#include "testdata/llvm/llvm_corpus.h"

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

const RealFunctions& LlvmCorpusFunctions(const std::string& target_name) {
  static auto* cache = new std::map<std::string, RealFunctions>();
  auto it = cache->find(target_name);
  if (it != cache->end()) return it->second;
  RealFunctions real;
  for (const LlvmCorpusFile& file : LlvmCorpus()) {
    if (file.target != target_name) continue;
    real.target = TargetByName(target_name).value();
    real.funcs = ParseModule(file.text, *real.target).value();
    for (Function& f : real.funcs) {
      absl::Status legal = Legalize(f, *real.target);
      if (!legal.ok()) {  // the corpus is checked in and tested: a broken one is a bug here
        std::fprintf(stderr, "LlvmCorpusFunctions: %s\n", std::string(legal.message()).c_str());
        std::abort();
      }
      real.insts += f.CountInstsInLayout();
    }
  }
  return cache->emplace(target_name, std::move(real)).first->second;
}

}  // namespace regalloc
