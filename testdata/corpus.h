// The embedded corpus of hand-written functions (testdata/*.ra), compiled into the
// binary so that `bazel run //tools:pipeline` needs no input file.
#ifndef REGALLOC_TESTDATA_CORPUS_H_
#define REGALLOC_TESTDATA_CORPUS_H_

#include <string>
#include <vector>

namespace regalloc {

struct CorpusFile {
  std::string name;  // "loop.ra"
  std::string text;
};

// In file-name order.
const std::vector<CorpusFile>& Corpus();

}  // namespace regalloc

#endif  // REGALLOC_TESTDATA_CORPUS_H_
