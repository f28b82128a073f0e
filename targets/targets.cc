// The concrete register files: x86-64 (System V and Win64), AArch64 (AAPCS64) and
// ARMv7-A (AAPCS-VFP, hard float). Each is a table of bit ranges handed to
// TargetBuilder, which derives aliases and units.
#include "targets/targets.h"

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "targets/target_builder.h"

namespace regalloc {
namespace {

// ---------------------------------------------------------------- x86-64

absl::StatusOr<Target> BuildX86_64(bool win64, const TargetOptions& options) {
  TargetBuilder b(win64 ? "x86_64_win" : "x86_64");
  b.set_isa(Isa::kX86_64);
  // Hardware encoding order; containers 0-15 are the GPRs, 16-31 the XMM registers,
  // 32-38 the x87 registers as LLVM allocates them (fp0-fp6, before its
  // stackifier maps them onto st0-st7; the eighth is its scratch).
  static constexpr const char* kQ[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
  static constexpr const char* kD[16] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
                                         "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};
  static constexpr const char* kW[16] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
                                         "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w"};
  static constexpr const char* kB[16] = {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil",
                                         "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"};
  static constexpr const char* kH[4] = {"ah", "ch", "dh", "bh"};
  PReg q[16], d[16], xmm[16];
  for (int i = 0; i < 16; ++i) q[i] = b.AddReg(kQ[i], i, 0, 64);
  for (int i = 0; i < 16; ++i) xmm[i] = b.AddReg(absl::StrCat("xmm", i), 16 + i, 0, 128);
  std::vector<PReg> fp;
  // 128 bits wide here: an f80 is kept in 16 bytes, in registers as in slots.
  for (int i = 0; i < 7; ++i) fp.push_back(b.AddReg(absl::StrCat("fp", i), 32 + i, 0, 128));
  for (int i = 0; i < 16; ++i) d[i] = b.AddReg(kD[i], i, 0, 32);
  for (int i = 0; i < 16; ++i) b.AddReg(kW[i], i, 0, 16);
  PReg lo8[16], hi8[4];
  for (int i = 0; i < 16; ++i) lo8[i] = b.AddReg(kB[i], i, 0, 8);
  // ah/ch/dh/bh are bits 8-15 of the first four: they alias ax/eax/rax, not al.
  for (int i = 0; i < 4; ++i) hi8[i] = b.AddReg(kH[i], i, 8, 16);

  enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
  std::vector<int> order = {RAX, RCX, RDX, RSI, RDI, R8, R9, R10, R11,  // caller-saved
                            RBX, R12, R13, R14, R15, RBP};
  if (win64) order = {RAX, RCX, RDX, R8, R9, R10, R11, RBX, RSI, RDI, R12, R13, R14, R15, RBP};
  const size_t num_caller_saved = win64 ? 7 : 9;
  std::vector<PReg> order_q, order_d, order_b, order_x;
  for (size_t k = 0; k < order.size(); ++k) {
    int i = order[k];
    order_q.push_back(q[i]);
    order_d.push_back(d[i]);
    // ah/ch/dh after the other caller-saved bytes, bh after the callee-saved ones.
    // Encoding limits (no ah-bh in an instruction with a REX prefix, as sil or r8b
    // need) are not modelled: allocation here is by storage.
    if (k == num_caller_saved) {
      for (int h : {RAX, RCX, RDX}) order_b.push_back(hi8[h]);
    }
    order_b.push_back(lo8[i]);
  }
  order_b.push_back(hi8[RBX]);
  for (int i = 0; i < 16; ++i) order_x.push_back(xmm[i]);
  int gpr = b.AddBank("gpr");
  int vec = b.AddBank("xmm");
  b.AddClass("gpr32", gpr, 1, order_d, {Type::kI32});
  b.AddClass("gpr64", gpr, 1, order_q, {Type::kI64});
  RegClass gpr8 = b.AddClass("gpr8", gpr, 1, order_b, {Type::kI8});
  // An i8 in ah leaves al to another i8, but takes rax from everything wider: for
  // pressure each i8 costs one GPR, as an i32 or i64 does.
  b.Uncounted(gpr8, {hi8[0], hi8[1], hi8[2], hi8[3]});
  b.AddClass("xmm", vec, 1, order_x, {Type::kF32, Type::kF64, Type::kV128});
  b.AddClass("x87", b.AddBank("x87"), 1, fp, {Type::kF80});
  b.Reserve(q[RSP]);
  if (options.frame_pointer) b.Reserve(q[RBP]);
  b.set_has_swap(true);

  Abi& abi = b.abi();
  if (!win64) {
    abi.name = "sysv";
    abi.assignment = ArgAssignment::kSeparate;
    abi.int_args = {q[RDI], q[RSI], q[RDX], q[RCX], q[R8], q[R9]};
    for (int i = 0; i < 8; ++i) abi.float_args.push_back(xmm[i]);
    abi.int_results = {q[RAX], q[RDX]};
    abi.float_results = {xmm[0], xmm[1]};
    abi.x87_results = {fp[0], fp[1]};
    for (int i : {RAX, RCX, RDX, RSI, RDI, R8, R9, R10, R11}) abi.caller_saved.Insert(q[i]);
    for (int i = 0; i < 16; ++i) abi.caller_saved.Insert(xmm[i]);
    for (PReg r : fp) abi.caller_saved.Insert(r);
    for (int i : {RBX, RBP, R12, R13, R14, R15}) abi.callee_saved.Insert(q[i]);
  } else {
    abi.name = "win64";
    abi.assignment = ArgAssignment::kPositional;
    abi.int_args = {q[RCX], q[RDX], q[R8], q[R9]};
    for (int i = 0; i < 4; ++i) abi.float_args.push_back(xmm[i]);
    abi.int_results = {q[RAX]};
    abi.float_results = {xmm[0]};
    abi.x87_results = {fp[0]};
    for (int i : {RAX, RCX, RDX, R8, R9, R10, R11}) abi.caller_saved.Insert(q[i]);
    for (int i = 0; i < 6; ++i) abi.caller_saved.Insert(xmm[i]);
    for (PReg r : fp) abi.caller_saved.Insert(r);
    for (int i : {RBX, RBP, RSI, RDI, R12, R13, R14, R15}) abi.callee_saved.Insert(q[i]);
    for (int i = 6; i < 16; ++i) abi.callee_saved.Insert(xmm[i]);
  }
  return std::move(b).Build();
}

// ---------------------------------------------------------------- AArch64

absl::StatusOr<Target> BuildAArch64(const TargetOptions& options) {
  TargetBuilder b("aarch64");
  b.set_isa(Isa::kAArch64);
  // Containers 0-30: x0-x30; 31: sp; 32-63: v0-v31.
  PReg x[31], w[31], qv[32], dv[32], sv[32];
  for (int i = 0; i < 31; ++i) x[i] = b.AddReg(absl::StrCat("x", i), i, 0, 64);
  PReg sp = b.AddReg("sp", 31, 0, 64);
  for (int i = 0; i < 32; ++i) qv[i] = b.AddReg(absl::StrCat("q", i), 32 + i, 0, 128);
  for (int i = 0; i < 32; ++i) dv[i] = b.AddReg(absl::StrCat("d", i), 32 + i, 0, 64);
  for (int i = 0; i < 32; ++i) sv[i] = b.AddReg(absl::StrCat("s", i), 32 + i, 0, 32);
  for (int i = 0; i < 31; ++i) w[i] = b.AddReg(absl::StrCat("w", i), i, 0, 32);
  // AAPCS64 §6.1.2: only the low 64 bits of v8-v15 are callee-saved. The upper halves
  // are named so that the caller-saved set (call clobbers) can list exactly them.
  PReg hi[8];
  for (int i = 8; i < 16; ++i) hi[i - 8] = b.AddReg(absl::StrCat("v", i, "_hi"), 32 + i, 64, 128);

  std::vector<int> gorder;
  for (int i = 0; i <= 17; ++i) gorder.push_back(i);   // x0-x17: caller-saved
  for (int i = 19; i <= 28; ++i) gorder.push_back(i);  // x19-x28: callee-saved
  std::vector<int> vorder;
  for (int i = 0; i < 8; ++i) vorder.push_back(i);
  for (int i = 16; i < 32; ++i) vorder.push_back(i);
  for (int i = 8; i < 16; ++i) vorder.push_back(i);
  std::vector<PReg> ox, ow, oq, od, os;
  for (int i : gorder) {
    ox.push_back(x[i]);
    ow.push_back(w[i]);
  }
  for (int i : vorder) {
    oq.push_back(qv[i]);
    od.push_back(dv[i]);
    os.push_back(sv[i]);
  }
  int gpr = b.AddBank("gpr");
  int fp = b.AddBank("fp");
  b.AddClass("w", gpr, 1, ow, {Type::kI32, Type::kI8});
  b.AddClass("x", gpr, 1, ox, {Type::kI64});
  b.AddClass("s", fp, 1, os, {Type::kF32});
  b.AddClass("d", fp, 1, od, {Type::kF64});
  b.AddClass("q", fp, 1, oq, {Type::kV128});
  // x18: platform register; x29: frame pointer; x30: link register (always reserved:
  // AAPCS64 frame records need x29, so TargetOptions::frame_pointer changes nothing).
  b.Reserve(x[18]);
  b.Reserve(x[29]);
  b.Reserve(x[30]);
  b.Reserve(sp);
  (void)options;
  b.set_has_swap(false);

  Abi& abi = b.abi();
  abi.name = "aapcs64";
  abi.assignment = ArgAssignment::kSeparate;
  for (int i = 0; i < 8; ++i) {
    abi.int_args.push_back(x[i]);
    abi.float_args.push_back(qv[i]);
  }
  abi.int_results = {x[0], x[1]};
  abi.float_results = {qv[0], qv[1], qv[2], qv[3]};
  for (int i = 0; i <= 17; ++i) abi.caller_saved.Insert(x[i]);
  for (int i : vorder) {
    if (i < 8 || i >= 16) abi.caller_saved.Insert(qv[i]);
  }
  for (int i = 0; i < 8; ++i) abi.caller_saved.Insert(hi[i]);
  for (int i = 19; i <= 28; ++i) abi.callee_saved.Insert(x[i]);
  for (int i = 8; i < 16; ++i) abi.callee_saved.Insert(dv[i]);
  return std::move(b).Build();
}

// ---------------------------------------------------------------- ARMv7

// i64 values are out of scope on ARMv7: they would need register pairs (r0:r1), which
// no register class here models. ClassFor(Type::kI64) is nullopt, and legalization
// rejects such functions with an error naming the value.
absl::StatusOr<Target> BuildArmv7(const TargetOptions& options) {
  TargetBuilder b("armv7");
  b.set_isa(Isa::kArmv7);
  // Containers 0-15: r0-r15; 16: the VFP/NEON register file, 32 x 64 bits.
  PReg r[16];
  for (int i = 0; i < 13; ++i) r[i] = b.AddReg(absl::StrCat("r", i), i, 0, 32);
  r[13] = b.AddReg("sp", 13, 0, 32);
  r[14] = b.AddReg("lr", 14, 0, 32);
  r[15] = b.AddReg("pc", 15, 0, 32);
  constexpr int kVfp = 16;
  PReg s[32], d[32], q[16];
  // s0,s1 ⊂ d0; d0,d1 ⊂ q0; d16-d31 have no s views.
  for (int i = 0; i < 16; ++i) q[i] = b.AddReg(absl::StrCat("q", i), kVfp, 128 * i, 128 * i + 128);
  for (int i = 0; i < 32; ++i) d[i] = b.AddReg(absl::StrCat("d", i), kVfp, 64 * i, 64 * i + 64);
  for (int i = 0; i < 32; ++i) s[i] = b.AddReg(absl::StrCat("s", i), kVfp, 32 * i, 32 * i + 32);

  std::vector<PReg> orr = {r[0], r[1], r[2], r[3], r[12], r[14],  // caller-saved
                           r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]};
  std::vector<PReg> os, od, oq;
  for (int i = 0; i < 16; ++i) os.push_back(s[i]);
  for (int i = 16; i < 32; ++i) os.push_back(s[i]);
  // Caller-saved first, callee-saved last; among the caller-saved, the d and q
  // registers that no s register aliases come first, so that f64 and v128
  // values leave s0-s31 to f32 ones (the VFP bank is one pool: a d0 taken by an
  // f64 is two f32 registers gone).
  for (int i = 16; i < 32; ++i) od.push_back(d[i]);
  for (int i = 0; i < 8; ++i) od.push_back(d[i]);
  for (int i = 8; i < 16; ++i) od.push_back(d[i]);
  for (int i = 8; i < 16; ++i) oq.push_back(q[i]);
  for (int i = 0; i < 4; ++i) oq.push_back(q[i]);
  for (int i = 4; i < 8; ++i) oq.push_back(q[i]);
  int gpr = b.AddBank("gpr");
  int vfp = b.AddBank("vfp");
  b.AddClass("r", gpr, 1, orr, {Type::kI32, Type::kI8});
  b.AddClass("s", vfp, 1, os, {Type::kF32});
  b.AddClass("d", vfp, 2, od, {Type::kF64});
  b.AddClass("q", vfp, 4, oq, {Type::kV128});
  b.Reserve(r[13]);
  b.Reserve(r[15]);
  if (options.frame_pointer) b.Reserve(r[11]);
  b.set_has_swap(false);

  Abi& abi = b.abi();
  abi.name = "aapcs-vfp";
  abi.assignment = ArgAssignment::kVfpBackfill;
  abi.int_args = {r[0], r[1], r[2], r[3]};
  for (int i = 0; i < 16; ++i) abi.float_args.push_back(s[i]);
  abi.int_results = {r[0], r[1]};
  for (int i = 0; i < 16; ++i) abi.float_results.push_back(s[i]);
  for (int i : {0, 1, 2, 3, 12, 14}) abi.caller_saved.Insert(r[i]);
  for (int i = 0; i < 8; ++i) abi.caller_saved.Insert(d[i]);
  for (int i = 16; i < 32; ++i) abi.caller_saved.Insert(d[i]);
  for (int i = 4; i <= 11; ++i) abi.callee_saved.Insert(r[i]);
  for (int i = 8; i < 16; ++i) abi.callee_saved.Insert(d[i]);
  return std::move(b).Build();
}

constexpr absl::string_view kNames[] = {"x86_64", "x86_64_win", "aarch64", "armv7"};

}  // namespace

absl::StatusOr<Target> BuildTarget(absl::string_view name, const TargetOptions& options) {
  if (name == "x86_64") return BuildX86_64(/*win64=*/false, options);
  if (name == "x86_64_win") return BuildX86_64(/*win64=*/true, options);
  if (name == "aarch64") return BuildAArch64(options);
  if (name == "armv7") return BuildArmv7(options);
  return absl::InvalidArgumentError(absl::StrCat("unknown target '", name,
                                                 "'; known targets: ", absl::StrJoin(kNames, ", ")));
}

absl::Span<const absl::string_view> TargetNames() { return kNames; }

absl::StatusOr<const Target*> TargetByName(absl::string_view name, const TargetOptions& options) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* cache = new std::map<std::string, std::unique_ptr<Target>>();
  std::string key = absl::StrCat(name, options.frame_pointer ? "+fp" : "");
  absl::MutexLock lock(&mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second.get();
  absl::StatusOr<Target> built = BuildTarget(name, options);
  if (!built.ok()) return built.status();
  auto [pos, inserted] = cache->emplace(key, std::make_unique<Target>(*std::move(built)));
  return pos->second.get();
}

}  // namespace regalloc
