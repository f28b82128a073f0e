#include "tools/dump.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "ssa/verifier.h"

namespace regalloc {
namespace {

void LocationToProto(Location loc, uint32_t& kind, uint32_t& index) {
  kind = static_cast<uint32_t>(loc.kind());
  index = loc.IsReg() ? loc.reg().index() : loc.IsStack() ? loc.slot().index() : 0;
}

dump::Operand OperandToProto(const Operand& op) {
  dump::Operand p;
  p.set_value(op.value().index());
  p.set_is_def(op.IsDef());
  p.set_late(op.position() == Position::kLate);
  p.set_constraint(static_cast<uint32_t>(op.constraint()));
  p.set_constraint_arg(op.constraint() == ConstraintKind::kFixed   ? op.fixed_reg().index()
                       : op.constraint() == ConstraintKind::kReuse ? op.reuse_index()
                                                                    : 0);
  uint32_t kind, index;
  LocationToProto(op.location(), kind, index);
  p.set_location_kind(kind);
  p.set_location_index(index);
  return p;
}

// Checks ids against the function being built and the target.
class Loader {
 public:
  Loader(const dump::Function& proto, const Target& target) : p_(proto), target_(target) {}

  absl::StatusOr<Function> Load();
  absl::Status LoadNames();

 private:
  absl::Status Error(absl::string_view where, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("function %", p_.name(), ", ", where, ": ", what));
  }
  absl::StatusOr<Type> TypeOf(uint32_t t, absl::string_view where) const {
    if (t >= static_cast<uint32_t>(kNumTypes)) return Error(where, absl::StrCat("type #", t, " does not exist"));
    return static_cast<Type>(t);
  }
  absl::StatusOr<Location> LocationOf(uint32_t kind, uint32_t index, absl::string_view where) const;
  absl::StatusOr<Operand> OperandOf(const dump::Operand& p, absl::string_view where) const;

  const dump::Function& p_;
  const Target& target_;
  Function f_;
};

absl::StatusOr<Location> Loader::LocationOf(uint32_t kind, uint32_t index, absl::string_view where) const {
  switch (kind) {
    case 0: return Location();
    case 1:
      if (index >= static_cast<uint32_t>(target_.num_regs())) {
        return Error(where, absl::StrCat("register #", index, " does not exist on ", target_.name()));
      }
      return Location::Reg(PReg(index));
    case 2:
      if (index >= static_cast<uint32_t>(p_.stack_slot_sizes_size())) {
        return Error(where, absl::StrCat("stack slot ss", index, " is not declared"));
      }
      return Location::Stack(StackSlot(index));
    default: return Error(where, absl::StrCat("location kind #", kind, " does not exist"));
  }
}

absl::StatusOr<Operand> Loader::OperandOf(const dump::Operand& p, absl::string_view where) const {
  if (p.value() >= static_cast<uint32_t>(f_.num_values()) || !f_.ValueExists(Value(p.value()))) {
    return Error(where, absl::StrCat("operand names v", p.value(), ", which does not exist"));
  }
  Operand op = p.is_def() ? Operand::Def(Value(p.value())) : Operand::Use(Value(p.value()));
  op = op.WithPosition(p.late() ? Position::kLate : Position::kEarly);
  switch (p.constraint()) {
    case 0: break;
    case 1: op = op.WithConstraint(ConstraintKind::kAny); break;
    case 2: op = op.WithConstraint(ConstraintKind::kStack); break;
    case 3:
      if (p.constraint_arg() >= static_cast<uint32_t>(target_.num_regs())) {
        return Error(where, absl::StrCat("v", p.value(), " is fixed to register #", p.constraint_arg(),
                                         ", which does not exist on ", target_.name()));
      }
      op = op.WithFixed(PReg(p.constraint_arg()));
      break;
    case 4:
      if (!p.is_def()) return Error(where, absl::StrCat("v", p.value(), ": reuse constraint on a use"));
      if (p.constraint_arg() > 0xffff) return Error(where, "reuse index out of range");
      op = Operand::ReuseDef(op.value(), static_cast<int>(p.constraint_arg())).WithPosition(op.position());
      break;
    default:
      return Error(where, absl::StrCat("v", p.value(), " has constraint kind #", p.constraint(), ", which does not exist"));
  }
  RA_ASSIGN_OR_RETURN(Location loc, LocationOf(p.location_kind(), p.location_index(), where));
  op.set_location(loc);
  return op;
}

absl::StatusOr<Function> Loader::Load() {
  f_.set_name(p_.name());
  for (uint32_t t : p_.param_types()) {
    RA_ASSIGN_OR_RETURN(Type type, TypeOf(t, "signature"));
    f_.mutable_param_types().push_back(type);
  }
  for (uint32_t t : p_.result_types()) {
    RA_ASSIGN_OR_RETURN(Type type, TypeOf(t, "signature"));
    f_.mutable_result_types().push_back(type);
  }
  if (p_.value_types_size() != p_.value_exists_size()) {
    return Error("values", "value_types and value_exists differ in length");
  }
  if (p_.value_types_size() > (1 << 28)) return Error("values", "too many values");
  f_.GrowValues(p_.value_types_size());
  for (int v = 0; v < p_.value_types_size(); ++v) {
    RA_ASSIGN_OR_RETURN(Type type, TypeOf(p_.value_types(v), absl::StrCat("v", v)));
    if (p_.value_exists(v)) f_.EnsureValue(Value(v), type);
  }
  for (const std::string& c : p_.callees()) f_.InternCallee(c);
  for (int s = 0; s < p_.clobber_sets_size(); ++s) {
    RegSet set;
    for (uint32_t r : p_.clobber_sets(s).regs()) {
      if (r >= static_cast<uint32_t>(target_.num_regs())) {
        return Error("clobber sets", absl::StrCat("register #", r, " does not exist on ", target_.name()));
      }
      set.Insert(PReg(r));
    }
    f_.InternClobbers(set);
  }
  if (f_.num_clobber_sets() != p_.clobber_sets_size()) return Error("clobber sets", "a clobber set is repeated");
  for (int s = 0; s < p_.stack_slot_sizes_size(); ++s) {
    uint32_t size = p_.stack_slot_sizes(s);
    if (size == 0 || size > (1u << 20)) return Error(absl::StrCat("ss", s), absl::StrCat("bad size ", size));
    f_.EnsureStackSlot(StackSlot(s), static_cast<int>(size));
  }
  RegSet saved;
  for (uint32_t r : p_.saved_regs().regs()) {
    if (r >= static_cast<uint32_t>(target_.num_regs())) {
      return Error("saved registers", absl::StrCat("register #", r, " does not exist on ", target_.name()));
    }
    saved.Insert(PReg(r));
  }
  f_.set_saved_regs(saved);
  // Ids are dense (the parser renumbers sparse text): a block count out of
  // proportion to the layout would only cost memory.
  if (p_.num_blocks() > (1u << 24) || p_.num_blocks() > 4u * p_.layout_size() + 1024) {
    return Error("blocks", absl::StrCat("num_blocks ", p_.num_blocks(), " is out of proportion to the ",
                                        p_.layout_size(), " blocks of the layout"));
  }
  if (p_.num_blocks() > 0) f_.EnsureBlock(Block(p_.num_blocks() - 1));
  std::vector<uint8_t> placed(p_.num_blocks(), 0);
  for (const dump::Block& pb : p_.layout()) {
    if (pb.id() >= p_.num_blocks()) return Error(absl::StrCat("block", pb.id()), "block id out of range");
    if (placed[pb.id()]) return Error(absl::StrCat("block", pb.id()), "block appears twice in the layout");
    placed[pb.id()] = 1;
  }
  for (const dump::Block& pb : p_.layout()) {
    Block b(pb.id());
    std::string where = absl::StrCat("block", pb.id());
    f_.AppendToLayout(b);
    for (const dump::Operand& po : pb.params()) {
      RA_ASSIGN_OR_RETURN(Operand op, OperandOf(po, where));
      f_.block(b).params.push_back(op);
    }
    for (int k = 0; k < pb.insts_size(); ++k) {
      const dump::Inst& pi = pb.insts(k);
      std::string iwhere = absl::StrCat(where, ", inst ", k);
      if (pi.opcode() >= static_cast<uint32_t>(kNumOpcodes)) {
        return Error(iwhere, absl::StrCat("opcode #", pi.opcode(), " does not exist"));
      }
      if (pi.cond() >= static_cast<uint32_t>(kNumCondCodes)) {
        return Error(iwhere, absl::StrCat("condition #", pi.cond(), " does not exist"));
      }
      if (pi.operands_size() > 0xffff) return Error(iwhere, "too many operands");
      InstData d;
      d.opcode = static_cast<Opcode>(pi.opcode());
      d.cc = static_cast<CondCode>(pi.cond());
      RA_ASSIGN_OR_RETURN(d.type, TypeOf(pi.type(), iwhere));
      d.imm = pi.imm();
      if ((d.opcode == Opcode::kCall || IsOpaque(d.opcode)) && (d.imm < 0 || d.imm >= f_.num_callees())) {
        return Error(iwhere, absl::StrCat("callee #", d.imm, " does not exist"));
      }
      if (pi.clobbers() < -1 || pi.clobbers() >= f_.num_clobber_sets()) {
        return Error(iwhere, absl::StrCat("clobber set #", pi.clobbers(), " does not exist"));
      }
      d.clobbers = pi.clobbers();
      if (pi.targets_size() > 0xffff) return Error(iwhere, "more branch targets than a branch can have");
      std::vector<BranchTarget> targets(pi.targets_size());
      for (int t = 0; t < pi.targets_size(); ++t) {
        const dump::BranchTarget& bt = pi.targets(t);
        if (bt.block() >= p_.num_blocks()) return Error(iwhere, absl::StrCat("branch to block", bt.block(), ", which does not exist"));
        if (uint64_t{bt.first_arg()} + bt.num_args() > static_cast<uint64_t>(pi.operands_size())) {
          return Error(iwhere, "branch arguments run past the operands");
        }
        targets[t] = BranchTarget{Block(bt.block()), static_cast<uint16_t>(bt.first_arg()),
                                    static_cast<uint16_t>(bt.num_args())};
      }
      std::vector<Operand> ops;
      for (const dump::Operand& po : pi.operands()) {
        RA_ASSIGN_OR_RETURN(Operand op, OperandOf(po, iwhere));
        ops.push_back(op);
      }
      f_.block(b).insts.push_back(f_.NewInst(d, ops, targets));
    }
  }
  RA_RETURN_IF_ERROR(LoadNames());
  return std::move(f_);
}

absl::Status Loader::LoadNames() {
  auto names = [&](const google::protobuf::RepeatedField<uint32_t>& in, int count, const char* what,
                   std::vector<uint32_t>& out) -> absl::Status {
    if (in.empty()) return absl::OkStatus();
    if (in.size() != count) {
      return Error(what, absl::StrCat(in.size(), " names for ", count, " ids"));
    }
    out.assign(in.begin(), in.end());
    for (uint32_t n : out) {
      if (n > Function::kMaxName) return Error(what, absl::StrCat("the name ", n, " is past ", Function::kMaxName));
    }
    std::vector<uint32_t> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return Error(what, absl::StrCat("the name ", *std::adjacent_find(sorted.begin(), sorted.end()),
                                      " is given twice"));
    }
    return absl::OkStatus();
  };
  std::vector<uint32_t> values, blocks, slots;
  RA_RETURN_IF_ERROR(names(p_.value_names(), f_.num_values(), "value names", values));
  RA_RETURN_IF_ERROR(names(p_.block_names(), f_.num_blocks(), "block names", blocks));
  RA_RETURN_IF_ERROR(names(p_.slot_names(), f_.num_stack_slots(), "slot names", slots));
  f_.SetNames(std::move(values), std::move(blocks), std::move(slots));
  return absl::OkStatus();
}

}  // namespace

dump::Function FunctionToProto(const Function& func) {
  dump::Function p;
  p.set_name(func.name());
  for (Type t : func.param_types()) p.add_param_types(static_cast<uint32_t>(t));
  for (Type t : func.result_types()) p.add_result_types(static_cast<uint32_t>(t));
  for (int v = 0; v < func.num_values(); ++v) {
    bool exists = func.ValueExists(Value(v));
    p.add_value_types(exists ? static_cast<uint32_t>(func.value_type(Value(v))) : 0);
    p.add_value_exists(exists);
  }
  p.set_num_blocks(func.num_blocks());
  for (Block b : func.layout()) {
    dump::Block* pb = p.add_layout();
    pb->set_id(b.index());
    for (const Operand& op : func.block(b).params) *pb->add_params() = OperandToProto(op);
    for (Inst i : func.block(b).insts) {
      const InstData& d = func.inst(i);
      dump::Inst* pi = pb->add_insts();
      pi->set_opcode(static_cast<uint32_t>(d.opcode));
      pi->set_cond(static_cast<uint32_t>(d.cc));
      pi->set_type(static_cast<uint32_t>(d.type));
      pi->set_imm(d.imm);
      pi->set_clobbers(d.clobbers);
      for (const Operand& op : func.operands(i)) *pi->add_operands() = OperandToProto(op);
      for (const BranchTarget& t : func.targets(i)) {
        dump::BranchTarget* bt = pi->add_targets();
        bt->set_block(t.block.index());
        bt->set_first_arg(t.first_arg);
        bt->set_num_args(t.num_args);
      }
    }
  }
  for (int c = 0; c < func.num_callees(); ++c) p.add_callees(func.callee(c));
  for (int s = 0; s < func.num_clobber_sets(); ++s) {
    dump::RegisterSet* set = p.add_clobber_sets();
    for (PReg r : func.clobber_set(s)) set->add_regs(r.index());
  }
  for (int s = 0; s < func.num_stack_slots(); ++s) p.add_stack_slot_sizes(func.stack_slot(StackSlot(s)).size);
  for (PReg r : func.saved_regs()) p.mutable_saved_regs()->add_regs(r.index());
  for (uint32_t n : func.value_names()) p.add_value_names(n);
  for (uint32_t n : func.block_names()) p.add_block_names(n);
  for (uint32_t n : func.slot_names()) p.add_slot_names(n);
  return p;
}

absl::StatusOr<Function> FunctionFromProto(const dump::Function& proto, const Target& target) {
  return Loader(proto, target).Load();
}

dump::DumpFile ToDumpFile(const Target& target, const TargetOptions& options,
                          const std::vector<DumpedFunction>& funcs) {
  dump::DumpFile file;
  file.set_schema_version(kDumpSchemaVersion);
  file.set_target(std::string(target.name()));
  file.set_frame_pointer(options.frame_pointer);
  file.set_num_functions(static_cast<uint32_t>(funcs.size()));
  file.set_end_marker(kDumpEndMarker);
  for (const DumpedFunction& d : funcs) {
    dump::FunctionDump* fd = file.add_functions();
    *fd->mutable_function() = FunctionToProto(d.function);
    for (const std::string& p : d.phases_run) fd->add_phases_run(p);
    for (const PhaseStat& s : d.stats) {
      dump::Statistic* st = fd->add_stats();
      st->set_phase(s.phase);
      st->set_name(s.name);
      st->set_value(s.value);
    }
    for (Location loc : d.value_locations) {
      uint32_t kind, index;
      LocationToProto(loc, kind, index);
      fd->mutable_value_locations()->add_kinds(kind);
      fd->mutable_value_locations()->add_indices(index);
    }
    for (const auto& vreg : d.virtual_registers) {
      *fd->add_virtual_registers()->mutable_values() = {vreg.begin(), vreg.end()};
    }
    const LivenessRecord& l = d.liveness;
    for (const auto& row : l.live_in) *fd->mutable_liveness()->add_live_in()->mutable_values() = {row.begin(), row.end()};
    for (const auto& row : l.live_out) *fd->mutable_liveness()->add_live_out()->mutable_values() = {row.begin(), row.end()};
    for (const LivenessRecord::Range& r : l.ranges) {
      dump::LiveRange* pr = fd->mutable_liveness()->add_ranges();
      pr->set_value(r.value);
      pr->set_def_begin(r.def_begin);
      pr->set_def_end(r.def_end);
      *pr->mutable_live_in_bounds() = {r.live_in_bounds.begin(), r.live_in_bounds.end()};
    }
  }
  return file;
}

absl::StatusOr<LoadedDump> FromDumpFile(const dump::DumpFile& file) {
  if (file.schema_version() == 0) {
    return absl::InvalidArgumentError(
        "not a regalloc dump (it has no schema version; text input needs the .ra extension)");
  }
  if (file.schema_version() != kDumpSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat("dump schema version ", file.schema_version(),
                                                   " is not supported (this build reads version ",
                                                   kDumpSchemaVersion, ")"));
  }
  if (file.end_marker() != kDumpEndMarker) {
    return absl::InvalidArgumentError("dump is truncated or not a regalloc dump: its end marker is missing");
  }
  if (file.num_functions() != static_cast<uint32_t>(file.functions_size())) {
    return absl::InvalidArgumentError(absl::StrCat("dump is truncated: it announces ", file.num_functions(),
                                                   " functions and holds ", file.functions_size()));
  }
  TargetOptions options;
  options.frame_pointer = file.frame_pointer();
  RA_ASSIGN_OR_RETURN(const Target* target, TargetByName(file.target(), options));
  LoadedDump out;
  out.target = target;
  for (const dump::FunctionDump& fd : file.functions()) {
    DumpedFunction d;
    RA_ASSIGN_OR_RETURN(d.function, FunctionFromProto(fd.function(), *target));
    RA_RETURN_IF_ERROR(Verify(d.function, *target));
    d.phases_run.assign(fd.phases_run().begin(), fd.phases_run().end());
    for (const dump::Statistic& s : fd.stats()) d.stats.push_back(PhaseStat{s.phase(), s.name(), s.value()});
    const dump::ValueLocations& vl = fd.value_locations();
    if (vl.kinds_size() != vl.indices_size()) {
      return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(),
                                                     ": value locations are malformed"));
    }
    for (int v = 0; v < vl.kinds_size(); ++v) {
      uint32_t kind = vl.kinds(v), index = vl.indices(v);
      if (kind > 2 || (kind == 1 && index >= static_cast<uint32_t>(target->num_regs())) ||
          (kind == 2 && index >= static_cast<uint32_t>(d.function.num_stack_slots()))) {
        return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(), ": location of v", v,
                                                       " names no register or stack slot"));
      }
      d.value_locations.push_back(kind == 1   ? Location::Reg(PReg(index))
                                  : kind == 2 ? Location::Stack(StackSlot(index))
                                              : Location());
    }
    const dump::Liveness& pl = fd.liveness();
    if (pl.live_in_size() != pl.live_out_size() ||
        (pl.live_in_size() != 0 && pl.live_in_size() != d.function.num_blocks())) {
      return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(),
                                                     ": liveness does not match the blocks"));
    }
    auto values_ok = [&](const google::protobuf::RepeatedField<uint32_t>& vs) {
      for (uint32_t v : vs) {
        if (v >= static_cast<uint32_t>(d.function.num_values())) return false;
      }
      return true;
    };
    auto read_rows = [&](const google::protobuf::RepeatedPtrField<dump::ValueList>& rows,
                         std::vector<std::vector<uint32_t>>& into) -> absl::Status {
      for (const dump::ValueList& row : rows) {
        if (!values_ok(row.values())) {
          return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(),
                                                         ": liveness names an unknown value"));
        }
        into.emplace_back(row.values().begin(), row.values().end());
      }
      return absl::OkStatus();
    };
    RA_RETURN_IF_ERROR(read_rows(pl.live_in(), d.liveness.live_in));
    RA_RETURN_IF_ERROR(read_rows(pl.live_out(), d.liveness.live_out));
    for (const dump::LiveRange& pr : pl.ranges()) {
      if (pr.value() >= static_cast<uint32_t>(d.function.num_values()) || pr.live_in_bounds_size() % 2 != 0) {
        return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(), ": a live range is malformed"));
      }
      d.liveness.ranges.push_back(LivenessRecord::Range{pr.value(), pr.def_begin(), pr.def_end(),
                                                        {pr.live_in_bounds().begin(), pr.live_in_bounds().end()}});
    }
    for (const dump::ValueList& vreg : fd.virtual_registers()) {
      if (!values_ok(vreg.values()) || vreg.values_size() < 2) {
        return absl::InvalidArgumentError(absl::StrCat("function %", d.function.name(),
                                                       ": a virtual register is malformed"));
      }
      d.virtual_registers.emplace_back(vreg.values().begin(), vreg.values().end());
    }
    out.functions.push_back(std::move(d));
  }
  return out;
}

std::string SerializeDump(const dump::DumpFile& file) { return file.SerializeAsString(); }

absl::StatusOr<LoadedDump> ParseDump(absl::string_view bytes, absl::string_view source) {
  dump::DumpFile file;
  if (!file.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not a regalloc dump (truncated or corrupt)"));
  }
  absl::StatusOr<LoadedDump> loaded = FromDumpFile(file);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(), absl::StrCat(source, ": ", loaded.status().message()));
  }
  return loaded;
}

absl::Status WriteDumpFile(const std::string& path, const Target& target, const TargetOptions& options,
                           const std::vector<DumpedFunction>& funcs) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::InvalidArgumentError(absl::StrCat("cannot write ", path));
  out << SerializeDump(ToDumpFile(target, options, funcs));
  if (!out) return absl::InternalError(absl::StrCat("error writing ", path));
  return absl::OkStatus();
}

absl::StatusOr<LoadedDump> ReadDumpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", path));
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseDump(buf.str(), path);
}

}  // namespace regalloc
