// The LLVM 19 plugin: register allocators for llc and clang that bring LLVM's
// machine functions into this project.
//
//   clang-19 -O2 -fplugin=regalloc_llvm.so -mllvm -regalloc=ssa|lsra|chaitin|packing f.c
//   llc-19 -load=regalloc_llvm.so -regalloc=ssa f.ll
//
// `ssa`, `lsra`, `chaitin` and `packing` allocate each function with that
// allocator: import (tools/llvm/import.h), legalize, allocate, check the result
// with the checker (where every value is, and that every original instruction
// is still there), then write the allocation back (tools/llvm/writeback.h). A
// function any step refuses falls back to LLVM's greedy allocator; with
// `-regalloc-stats` the compile ends with how many functions each path took
// and the fallbacks counted by reason (`-regalloc-log` names every fallback).
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

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "chaitin/chaitin.h"
#include "check/checker.h"
#include "color/ssa_allocator.h"
#include "lsra/allocator.h"
#include "packing/packing.h"
#include "ssa/legalize.h"
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
#include "tools/llvm/writeback.h"

namespace regalloc {
namespace {

llvm::cl::opt<std::string> export_dir("regalloc-export-dir",
                                      llvm::cl::desc("regalloc export: the directory for NAME.ra and failures.tsv"),
                                      llvm::cl::init(""));

// A pass in the register-allocation slot that can hand a function to greedy: it
// requires what greedy requires (slot indexes, live intervals, the virtual
// register map, ...) and lends greedy its own analysis resolver.
class RegAllocSlotPass : public llvm::MachineFunctionPass {
 public:
  explicit RegAllocSlotPass(char& id) : llvm::MachineFunctionPass(id), greedy_(llvm::createGreedyRegisterAllocator()) {}

  // Greedy shares our resolver, and ~Pass deletes its resolver: greedy is let go
  // unfreed, or the resolver would be freed twice.
  ~RegAllocSlotPass() override { greedy_.release(); }

  void getAnalysisUsage(llvm::AnalysisUsage& au) const override {
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

 protected:
  bool Greedy(llvm::MachineFunction& mf) {
    greedy_->setResolver(getResolver());
    return greedy_->runOnFunction(mf.getFunction());
  }

 private:
  std::unique_ptr<llvm::FunctionPass> greedy_;
};

class ExportPass : public RegAllocSlotPass {
 public:
  static char ID;
  ExportPass() : RegAllocSlotPass(ID) {}

  llvm::StringRef getPassName() const override { return "regalloc export, then greedy"; }

  bool runOnMachineFunction(llvm::MachineFunction& mf) override {
    Export(mf);
    return Greedy(mf);
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
};

char ExportPass::ID = 0;

llvm::cl::opt<bool> print_stats("regalloc-stats",
                                llvm::cl::desc("regalloc: at the end, the functions each allocator took and the "
                                               "fallbacks to greedy by reason"),
                                llvm::cl::init(false));
llvm::cl::opt<bool> log_fallbacks("regalloc-log", llvm::cl::desc("regalloc: name every function that falls back to greedy, and why"),
                                  llvm::cl::init(false));

enum class Family { kSsa, kLsra, kChaitin, kPacking };

// What makes a function fall back, without the function's name and numbers, so
// that equal causes count together.
std::string Reason(absl::string_view stage, const absl::Status& status) {
  std::string message(status.message());
  if (absl::StartsWith(message, "function ")) {
    size_t colon = message.find(": ");
    if (colon != std::string::npos) message = message.substr(colon + 2);
  }
  if (absl::StartsWith(message, absl::StrCat(stage, ": "))) message = message.substr(stage.size() + 2);
  std::string out = absl::StrCat(stage, ": ");
  bool digits = false;
  for (char c : message) {
    if (c >= '0' && c <= '9') {
      if (!digits) out += '#';
      digits = true;
      continue;
    }
    digits = false;
    out += c;
  }
  if (out.size() > 120) out.resize(120);
  return out;
}

class AllocatorPass : public RegAllocSlotPass {
 public:
  static char ID;
  explicit AllocatorPass(Family family) : RegAllocSlotPass(ID), family_(family) {}

  llvm::StringRef getPassName() const override { return name(); }

  bool runOnMachineFunction(llvm::MachineFunction& mf) override {
    std::string stage;
    absl::Status status = Allocate(mf, stage);
    if (status.ok()) {
      ++allocated_;
      return true;
    }
    ++fallbacks_[Reason(stage, status)];
    ++fallen_back_;
    if (log_fallbacks) llvm::errs() << "regalloc " << name() << ": greedy allocates " << mf.getName() << ": " << stage << ": " << std::string(status.message()) << "\n";
    return Greedy(mf);
  }

  bool doFinalization(llvm::Module& m) override {
    if (print_stats) {
      llvm::errs() << "regalloc " << name() << ": " << allocated_ << " functions allocated, " << fallen_back_
                   << " fell back to greedy\n";
      llvm::errs() << "regalloc " << name() << ": written back: " << written_.copies << " copies, " << written_.stores
                   << " stores, " << written_.loads << " loads, " << written_.stack_moves << " stack moves, "
                   << written_.split_edges << " split edges (" << written_.jump_table_edges << " out of jump tables)\n";
      for (const auto& [reason, count] : fallbacks_) llvm::errs() << "  " << count << "\t" << reason << "\n";
    }
    return llvm::MachineFunctionPass::doFinalization(m);
  }

 private:
  const char* name() const {
    switch (family_) {
      case Family::kSsa: return "ssa";
      case Family::kLsra: return "lsra";
      case Family::kChaitin: return "chaitin";
      case Family::kPacking: return "packing";
    }
    return "?";
  }

  absl::Status Run(Function& f, const Target& target) {
    switch (family_) {
      case Family::kSsa: return ssa_.Run(f, target).status();
      case Family::kLsra: return lsra_.Run(f, target).status();
      case Family::kChaitin: return chaitin_.Run(f, target).status();
      case Family::kPacking: return packing_.Run(f, target).status();
    }
    return absl::InternalError("no allocator");
  }

  // Import, legalize, allocate, check, write back; `stage` names the step that failed.
  absl::Status Allocate(llvm::MachineFunction& mf, std::string& stage) {
    stage = "import";
    RA_ASSIGN_OR_RETURN(ImportedFunction imported, ImportMachineFunction(mf));
    TargetOptions options;
    options.frame_pointer = imported.frame_pointer;
    RA_ASSIGN_OR_RETURN(const Target* target, TargetByName(imported.target, options));
    stage = "legalize";
    RA_RETURN_IF_ERROR(Legalize(imported.func, *target));
    Function allocated = imported.func;
    stage = "allocate";
    RA_RETURN_IF_ERROR(Run(allocated, *target));
    stage = "check";
    RA_RETURN_IF_ERROR(checker_.Run(allocated, *target));
    RA_RETURN_IF_ERROR(CheckKeepsOriginal(imported.func, allocated, *target));
    stage = "write-back";
    RA_ASSIGN_OR_RETURN(WriteBackStats written, WriteBack(allocated, imported, *target, mf, *this));
    written_.copies += written.copies;
    written_.stores += written.stores;
    written_.loads += written.loads;
    written_.stack_moves += written.stack_moves;
    written_.split_edges += written.split_edges;
    written_.jump_table_edges += written.jump_table_edges;
    return absl::OkStatus();
  }

  Family family_;
  SsaAllocator ssa_;
  LsraAllocator lsra_;
  ChaitinAllocator chaitin_;
  PackingAllocator packing_;
  AllocationChecker checker_;
  WriteBackStats written_;  // totals over the functions allocated
  int allocated_ = 0;
  int fallen_back_ = 0;
  std::map<std::string, int> fallbacks_;
};

char AllocatorPass::ID = 0;

llvm::RegisterRegAlloc ssa_registration("ssa", "regalloc's SSA allocator (Cretonne), greedy where it cannot",
                                        []() -> llvm::FunctionPass* { return new AllocatorPass(Family::kSsa); });
llvm::RegisterRegAlloc lsra_registration("lsra", "regalloc's linear scan (Subzero, RyuJIT), greedy where it cannot",
                                         []() -> llvm::FunctionPass* { return new AllocatorPass(Family::kLsra); });
llvm::RegisterRegAlloc chaitin_registration(
    "chaitin", "regalloc's Chaitin-Briggs allocator (HotSpot C2), greedy where it cannot",
    []() -> llvm::FunctionPass* { return new AllocatorPass(Family::kChaitin); });
llvm::RegisterRegAlloc packing_registration(
    "packing", "regalloc's packing allocator (Amsterdam Compiler Kit), greedy where it cannot",
    []() -> llvm::FunctionPass* { return new AllocatorPass(Family::kPacking); });

llvm::RegisterRegAlloc export_registration(
    "export", "write each function in regalloc's text format, then allocate it with greedy",
    []() -> llvm::FunctionPass* { return new ExportPass(); });

}  // namespace
}  // namespace regalloc
