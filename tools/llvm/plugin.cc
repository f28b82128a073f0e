// The LLVM 19 plugin: register allocators for llc and clang that bring LLVM's
// machine functions into this project.
//
//   llc-19 -load=regalloc_llvm.so -regalloc=export -regalloc-export-dir=DIR f.ll
//   clang-19 -O2 -fplugin=regalloc_llvm.so -mllvm -regalloc=export -mllvm -regalloc-export-dir=DIR f.c
//
// `export` imports each function (tools/llvm/import.h) and writes it to
// DIR/NAME.ra in our text format (DIR/NAME.fp.ra when LLVM reserves the frame
// pointer: run it with --frame_pointer), then lets LLVM's greedy allocator
// allocate the function, so the compile goes on as usual. A function the import
// cannot express is named, with the reason, in DIR/failures.tsv; greedy
// allocates it like the others.
//
// The pass sits in the register-allocation slot: it requires what greedy
// requires (slot indexes, live intervals, the virtual register map, ...) and
// hands greedy its own analysis resolver, which is how a function falls back.
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/CodeGen/LiveIntervals.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/RegAllocRegistry.h"
#include "llvm/CodeGen/SlotIndexes.h"
#include "llvm/CodeGen/VirtRegMap.h"
#include "llvm/IR/Function.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "ssa/printer.h"
#include "targets/target.h"
#include "tools/llvm/import.h"

namespace regalloc {
namespace {

llvm::cl::opt<std::string> export_dir("regalloc-export-dir",
                                      llvm::cl::desc("regalloc export: the directory for NAME.ra and failures.tsv"),
                                      llvm::cl::init(""));

class ExportPass : public llvm::MachineFunctionPass {
 public:
  static char ID;
  ExportPass() : llvm::MachineFunctionPass(ID), greedy_(llvm::createGreedyRegisterAllocator()) {}

  // Greedy shares our resolver, and ~Pass deletes its resolver: greedy is let go
  // unfreed, or the resolver would be freed twice.
  ~ExportPass() override { greedy_.release(); }

  llvm::StringRef getPassName() const override { return "regalloc export, then greedy"; }

  void getAnalysisUsage(llvm::AnalysisUsage& au) const override {
    au.setPreservesCFG();
    au.addRequired<llvm::SlotIndexesWrapperPass>();
    au.addPreserved<llvm::SlotIndexesWrapperPass>();
    au.addRequired<llvm::LiveIntervalsWrapperPass>();
    au.addPreserved<llvm::LiveIntervalsWrapperPass>();
    au.addRequired<llvm::VirtRegMap>();
    au.addPreserved<llvm::VirtRegMap>();
    greedy_->getAnalysisUsage(au);
    llvm::MachineFunctionPass::getAnalysisUsage(au);
  }

  llvm::MachineFunctionProperties getRequiredProperties() const override {
    return llvm::MachineFunctionProperties().set(llvm::MachineFunctionProperties::Property::NoPHIs);
  }
  llvm::MachineFunctionProperties getClearedProperties() const override {
    return llvm::MachineFunctionProperties().set(llvm::MachineFunctionProperties::Property::IsSSA);
  }

  bool runOnMachineFunction(llvm::MachineFunction& mf) override {
    Export(mf);
    greedy_->setResolver(getResolver());
    return greedy_->runOnFunction(mf.getFunction());
  }

 private:
  void Export(const llvm::MachineFunction& mf) {
    if (export_dir.empty()) {
      llvm::errs() << "regalloc export: set -regalloc-export-dir=DIR\n";
      return;
    }
    absl::StatusOr<ImportedFunction> imported = ImportMachineFunction(mf);
    if (!imported.ok()) {
      std::ofstream failures(absl::StrCat(export_dir.getValue(), "/failures.tsv"), std::ios::app);
      failures << mf.getName().str() << "\t" << imported.status().message() << "\n";
      return;
    }
    TargetOptions options;
    options.frame_pointer = imported->frame_pointer;
    const Target& target = **TargetByName(imported->target, options);
    std::string path = absl::StrCat(export_dir.getValue(), "/", imported->func.name(),
                                    imported->frame_pointer ? ".fp.ra" : ".ra");
    std::ofstream out(path);
    out << "; " << imported->target << (imported->frame_pointer ? ", frame pointer reserved" : "") << ", "
        << imported->machine_insts << " machine instructions\n"
        << PrintFunction(imported->func, target);
    if (!out) llvm::errs() << "regalloc export: cannot write " << path << "\n";
  }

  std::unique_ptr<llvm::FunctionPass> greedy_;
};

char ExportPass::ID = 0;

llvm::RegisterRegAlloc export_registration(
    "export", "write each function in regalloc's text format, then allocate it with greedy",
    []() -> llvm::FunctionPass* { return new ExportPass(); });

}  // namespace
}  // namespace regalloc
