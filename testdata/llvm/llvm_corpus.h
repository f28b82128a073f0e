// The second embedded corpus: real machine functions LLVM 19 compiled from the
// project's own C programs (testdata/llvm/src), imported by the plugin in
// tools/llvm. Each file is one module for one target; its functions hold opaque
// target instructions (the checker proves their allocation; the interpreter
// cannot run them).
#ifndef REGALLOC_TESTDATA_LLVM_LLVM_CORPUS_H_
#define REGALLOC_TESTDATA_LLVM_LLVM_CORPUS_H_

#include <string>
#include <vector>

namespace regalloc {

struct LlvmCorpusFile {
  std::string target;  // a TargetByName name: "x86_64", "aarch64"
  std::string text;
};

const std::vector<LlvmCorpusFile>& LlvmCorpus();

}  // namespace regalloc

#endif  // REGALLOC_TESTDATA_LLVM_LLVM_CORPUS_H_
