#include "chaitin/chaitin.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/warm_buffers.h"
#include "ssa/cfg.h"
#include "ssa/elide_moves.h"
#include "ssa/printer.h"

namespace regalloc {
namespace {

constexpr uint32_t kNoNode = ~0u;
// BuildGraph counts its nodes before it reserves its per-node lists above
// this many values (below, a node per value is at most 400 KB of lists).
constexpr size_t kCountNodesAbove = 4096;

// C2's LRG::score(): the higher, the less worth spilling. raw = cost − area ×
// RegisterCostAreaRatio / 65536 (C2's default ratio 16000), then the tiers.
double Score(double cost, double area, bool temp) {
  if (temp || area == 0.0) return 1e35;
  double score = cost - area * 16000.0 / 65536.0;
  if (cost >= area * 3.0) return score + 1e17;
  if (cost + cost >= area * 3.0) return score + 1e10;
  return score;
}

}  // namespace

namespace chaitin_internal {

// C2's reg_split across blocks, with SSA repair (ChaitinOptions::joins). A
// slot value's split piece (RewriteStackUses) may live on past the end of its
// block where nothing after its last read there is a barrier of its bank (a
// high-pressure instruction: a call is one where more of the bank's values
// live across it than the registers it spares), into a successor that reads it
// before its first barrier, or that has none and passes it on. `serve` holds
// the (block, slot value) pairs a piece entering would serve (backward from
// those reads through blocks clear of barriers, up to the slot value's
// definition, so the slot value lives into each), with the most frequent
// read each reaches. `up_in` and `up_out` hold where a piece enters and
// leaves (AnalyzeJoins). A block entered by pieces from several predecessor
// edges takes them as a new parameter, C2's phi for a split live range (the
// pressure was counted with the value in a register, and both ends of each
// edge it crosses are low-pressure); a predecessor without a piece passes
// the slot value, and the edge reloads it (lower_params) at the
// predecessor's frequency. A loop clear of barriers thus reads a value
// defined before it from one reload on its entry edge.
struct JoinPieces {
  struct Use {
    uint32_t value;  // a slot value read through a piece in the block
    bool first_ok;   // its first such read comes before the block's first barrier of its bank, or at it
    bool last_ok;    // its last comes after the last barrier, and is not at one
  };
  std::vector<std::pair<uint32_t, uint32_t>> range;  // by block index: its reads in `uses`, by value
  std::vector<Use> uses;
  std::vector<uint8_t> clear;     // by block and bank: no barrier in the block
  std::vector<uint8_t> joinable;  // by block: may take a new parameter
  absl::flat_hash_map<uint64_t, int64_t> serve;  // (block, slot value) wanting a piece: the weight it serves
  absl::flat_hash_set<uint64_t> up_in, up_out, useful;
  std::vector<uint64_t> useless;
  std::vector<std::pair<Block, uint32_t>> work;
  absl::flat_hash_map<uint64_t, Value> out;            // the piece leaving a block
  absl::flat_hash_map<uint64_t, Value> kept;           // a defining block's value, kept in its register
  std::vector<std::pair<uint32_t, uint32_t>> entering;  // (block, slot value) in up_in, sorted
  struct Param {
    Block block;
    Value of, param;
  };
  std::vector<Param> params;  // made, in order

  static uint64_t Key(Block b, uint32_t v) { return uint64_t{b.index()} << 32 | v; }
  const Use* Find(Block b, uint32_t v) const {
    auto first = uses.begin() + range[b.index()].first, last = uses.begin() + range[b.index()].second;
    auto it = std::lower_bound(first, last, v, [](const Use& u, uint32_t x) { return u.value < x; });
    return it != last && it->value == v ? &*it : nullptr;
  }
};

// What a ChaitinAllocator keeps between functions: the storage of Chaitin's
// buffers.
struct Buffers {
  CfgAnalyses cfg;
  std::vector<uint32_t> parent;
  std::vector<uint8_t> stack;
  std::vector<StackSlot> slot;
  std::vector<uint8_t> temp;
  std::vector<PReg> precolor;
  std::vector<Inst> remat;
  std::vector<Value> stored;
  std::vector<uint8_t> nosplit;
  std::vector<Inst> piece_def;
  std::vector<uint8_t> split_param;
  std::vector<int> block_pressure;
  std::vector<uint8_t> hrp;
  std::vector<std::pair<Value, Value>> forced;
  std::vector<uint32_t> node_of;
  std::vector<uint32_t> alias;
  std::vector<std::pair<uint32_t, char>> simplify_log;
  std::vector<RegClass> cls;
  std::vector<RegSet> mask;
  std::vector<double> cost;
  std::vector<double> area;
  std::vector<uint8_t> precolored;
  std::vector<uint8_t> node_temp;
  std::vector<PReg> color;
  std::vector<Inst> const_def;
  std::vector<int> cover;
  std::vector<int64_t> weight;
  std::vector<Inst> insts;
  std::vector<Inst> out;
  // The steps' own scratch, by step.
  std::vector<int> prepare_uses;
  std::vector<Value> prepare_rename;
  std::vector<uint8_t> prepare_skip;
  std::vector<Inst> prepare_top;
  std::vector<Inst> prepare_before;
  std::vector<Inst> prepare_after;
  std::vector<Block> rewrite_stack_uses_stack_def;
  std::vector<int> rewrite_stack_uses_seen;
  std::vector<Block> rewrite_stack_uses_order;
  // BuildGraph's own lists (given back after a large function's build: the
  // round's coloring, beside its graph, is the allocator's peak).
  struct BuildGraphScratch {
    std::vector<uint32_t> node_of_root;
    std::vector<NodeSet> live;                                // by bank
    std::vector<std::pair<uint8_t, uint8_t>> bank_weight;    // by node
    std::vector<double> enter;                                // by node: when it joined the live set
    std::vector<uint32_t> stamp;
    std::vector<uint32_t> stale;
    std::vector<int> pressure;
    std::vector<int> inst_max;
    std::vector<int> spared;
  };
  BuildGraphScratch build_graph;
  std::vector<Inst> rematerialize_constant_arguments_consts;
  NodeSet add_constant_node_meets;
  std::vector<uint8_t> color_on_low;
  std::vector<int> color_degree;
  std::vector<int> color_k;
  std::vector<uint32_t> color_key;
  std::vector<uint32_t> color_low;
  std::vector<uint32_t> color_stack;
  std::vector<uint32_t> color_remaining;
  std::vector<uint32_t> color_by_score;
  std::vector<double> color_score;
  std::vector<uint64_t> color_alive_bits;      // by node, a bit each: not merged into another
  std::vector<uint64_t> color_unremoved_bits;  // still in the simplify graph
  std::vector<uint64_t> color_colored_bits;    // given a register (precolored or by select)
  std::vector<uint8_t> color_uniform;          // by class: every neighbour takes one register
  std::vector<uint8_t> color_present;          // by bank and cover key
  struct CopyPair {
    uint32_t x, y;  // nodes
    double weight;
  };
  std::vector<CopyPair> color_copy_pairs;  // once each, in the walk's order
  std::vector<uint32_t> color_copy_pairs_at;
  std::vector<Value> color_last_in_slot;  // by slot value, within a block
  std::vector<Value> color_slots_touched;
  std::vector<uint32_t> color_partner_start;
  std::vector<std::pair<uint32_t, double>> color_partners;       // by node: (partner, weight)
  std::vector<double> color_bias;                                // by register
  std::vector<PReg> color_bias_touched;
  std::vector<uint8_t> spill_everywhere_is_spilled;
  std::vector<StackSlot> spill_everywhere_slot_of;
  std::vector<int> spill_everywhere_size_of;
  std::vector<uint8_t> spill_everywhere_member;
  std::vector<Value> spill_everywhere_rename;
  std::vector<uint8_t> spill_everywhere_skip;
  std::vector<std::pair<Value, Value>> spill_everywhere_same_as;
  std::vector<Block> spill_everywhere_keep_in;
  std::vector<uint8_t> dead_stores_read;           // by value: read by some instruction
  std::vector<int> spill_everywhere_barriers;      // a block's high-pressure instructions counted by bank
  std::vector<int> spill_everywhere_last_read;     // by value: its last read's index in last_read_in
  std::vector<Block> spill_everywhere_last_read_in;
  std::vector<Inst> spill_everywhere_dead;
  std::vector<Value> spill_everywhere_drop;
  JoinPieces joins;
  std::vector<std::pair<Value, Value>> conservative_pairs;
  std::vector<uint32_t> finish_spilled;
  MoveElider elider;
};

class Chaitin {
 public:
  // Every buffer starts empty, as in a new object; only its storage is kept.
  Chaitin(Function& f, const Target& t, const ChaitinOptions& o, LiveSets& sets, InterferenceGraph& g,
          ChaitinStats& stats, Buffers& b)
      : f_(f), t_(t), o_(o), sets_(sets), g_(g), stats_(stats), buf_(b),
        parent_(b.parent), stack_(b.stack), slot_(b.slot), temp_(b.temp), precolor_(b.precolor), remat_(b.remat),
        stored_(b.stored), nosplit_(b.nosplit), piece_def_(b.piece_def), split_param_(b.split_param),
        block_pressure_(b.block_pressure), hrp_(b.hrp),
        forced_(b.forced), node_of_(b.node_of), alias_(b.alias), simplify_log_(b.simplify_log), cls_(b.cls),
        mask_(b.mask), cost_(b.cost), area_(b.area),
        precolored_(b.precolored), node_temp_(b.node_temp), color_(b.color), const_def_(b.const_def), cover_(b.cover),
        weight_(b.weight), insts_(b.insts), out_(b.out), analyses_(b.cfg) {
    ClearAll(parent_, stack_, slot_, temp_, precolor_, remat_, stored_, nosplit_, piece_def_, split_param_, block_pressure_,
             hrp_, forced_, node_of_, alias_, simplify_log_, cls_, mask_, cost_, area_,
             precolored_, node_temp_, color_, const_def_, cover_, weight_);
  }

  // The first steps (constraints, the first graph, aggressive coalescing),
  // then the rest (conservative coalescing, coloring, spill rounds, locations).
  absl::Status Begin();
  absl::Status Finish();

 private:
  // Per value, across rounds.
  void Grow() {
    size_t n = static_cast<size_t>(f_.num_values());
    if (parent_.size() >= n) return;
    size_t old = parent_.size();
    parent_.resize(n);
    for (size_t v = old; v < n; ++v) parent_[v] = static_cast<uint32_t>(v);
    stack_.resize(n, 0);
    slot_.resize(n);
    temp_.resize(n, 0);
    precolor_.resize(n);
    remat_.resize(n);
    stored_.resize(n);
    nosplit_.resize(n, 0);
    piece_def_.resize(n);
    split_param_.resize(n, 0);
  }
  Value NewValueLike(Value v) {
    Value n = f_.NewValue(f_.value_type(v));
    Grow();
    return n;
  }
  uint32_t Find(uint32_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  void Union(Value a, Value b) {
    uint32_t ra = Find(a.index()), rb = Find(b.index());
    if (ra != rb) parent_[rb] = ra;
  }
  void MarkStack(Value v, StackSlot s) {
    stack_[v.index()] = 1;
    slot_[v.index()] = s;
  }
  // An allocator instruction `dst = op src` (copy, spill or reload). Copies read
  // and write any location: the allocation decides.
  Inst Make(Opcode op, Value dst, Value src) {
    InstData d;
    d.opcode = op;
    Operand ops[2] = {Operand::Def(dst).WithConstraint(ConstraintKind::kAny),
                      Operand::Use(src).WithConstraint(ConstraintKind::kAny)};
    return f_.NewInst(d, ops);
  }
  // `dst = const` with the constant of `original` (a const), without the
  // original's clobbers if it had any: a constant made again.
  Inst MakeConstAgain(Inst original, Value dst) { return regalloc::MakeConstAgain(f_, original, Operand::Def(dst)); }
  absl::Status Error(const std::string& what) const {
    // With dumps on (--print), the function as it stood, to reproduce from.
    return absl::InternalError(absl::StrCat("function %", f_.name(), ", chaitin round ", round_, ": ", what,
                                            o_.dump ? absl::StrCat("\n", PrintFunction(f_, t_)) : ""));
  }

  absl::Status Prepare();
  void RenameUses(const std::vector<Value>& rename, const std::vector<uint8_t>& skip);
  struct LoopReloads;
  void AnalyzeJoins(JoinPieces& j, const std::vector<Block>& stack_def);
  // Whether operand k of `ops` (a non-move instruction's; its branch
  // arguments from `first_arg`) reads a slot value in a register through a
  // split piece. A two-address source dies at its instruction: never a
  // shared piece.
  bool PieceRead(absl::Span<const Operand> ops, size_t k, size_t first_arg) const {
    const Operand& op = ops[k];
    if (!op.IsUse() || k >= first_arg || !stack_[op.value().index()]) return false;
    const ConstraintKind c = op.constraint();
    if (c == ConstraintKind::kAny || c == ConstraintKind::kStack || c == ConstraintKind::kFixed) return false;
    return Splitting() && !hrp_.empty() && !nosplit_[op.value().index()] && !IsReuseSource(ops, k);
  }
  absl::Status RewriteStackUses();
  // Removes the split parameters in `drop` (spilled again: their uses now read
  // the slot value) with their arguments, then every split piece left
  // without a use (a reload, or a parameter whose reader went).
  void DropSplitParams(const std::vector<Value>& drop);
  absl::Status BuildGraph();
  void AggressiveCoalesce();
  int RematerializeConstantArguments();
  void AddConstantNode(Block b, Inst branch, Value v, uint32_t of, Position read_at);
  void ConservativeCoalesce();
  void MergeNodes(uint32_t a, uint32_t b);
  bool Compatible(uint32_t a, uint32_t b) const;
  // A new live range of class `cls` (BuildGraph's, or one added to its graph).
  uint32_t NewNode(RegClass cls) {
    const uint32_t n = static_cast<uint32_t>(cls_.size());
    cls_.push_back(cls);
    mask_.push_back(t_.Class(cls).members);
    precolored_.push_back(0);
    node_temp_.push_back(1);
    color_.push_back(PReg());
    alias_.push_back(n);
    cost_.push_back(0.0);
    area_.push_back(0.0);
    return n;
  }
  uint32_t NodeOf(Value v) {
    uint32_t n = node_of_[v.index()];
    if (n == kNoNode) return n;
    while (alias_[n] != n) n = alias_[n];
    return n;
  }
  // The key of `cover_` for node n (fixed: its register, else its class).
  uint32_t CoverKey(uint32_t n) const {
    return precolored_[n] ? t_.num_classes() + color_[n].index() : cls_[n].index();
  }
  absl::Status Color(std::vector<uint32_t>& spilled);
  // The copy partners of each node (buf_.color_partner_start/color_partners):
  // the other side of each copy between two nodes, of each edge's argument
  // and parameter left apart, and of each reload and the value that last held
  // its slot's bits in the block, weighted by block frequency.
  void CopyPartners();
  // The values of node `n`, for messages and dumps.
  std::string Members(uint32_t n) {
    std::string out;
    for (size_t v = 0; v < node_of_.size(); ++v) {
      if (node_of_[v] != kNoNode && NodeOf(Value(static_cast<uint32_t>(v))) == n) {
        absl::StrAppend(&out, out.empty() ? "" : " ", f_.ValueName(Value(static_cast<uint32_t>(v))));
      }
    }
    return out;
  }
  absl::Status SpillEverywhere(const std::vector<uint32_t>& spilled);
  absl::Status Assign();
  void RemoveDeadStores();
  uint32_t first_made_inst_ = 0;  // instructions from this index on are chaitin's own
  void PrintRound(const std::vector<uint32_t>& spilled);

  Function& f_;
  const Target& t_;
  const ChaitinOptions& o_;
  LiveSets& sets_;
  InterferenceGraph& g_;
  ChaitinStats& stats_;
  Buffers& buf_;
  int round_ = 0;

  std::vector<uint32_t>& parent_;     // union-find over values: live ranges
  std::vector<uint8_t>& stack_;       // the value lives in a stack slot
  std::vector<StackSlot>& slot_;      // its slot
  std::vector<uint8_t>& temp_;        // spans one instruction: never spilled
  std::vector<PReg>& precolor_;       // its fixed register, if any
  std::vector<Inst>& remat_;          // a spilled constant's slot value: the const to make again
  // Splitting (C2's reg_split, at block granularity): a spilled value stays in
  // its register through its defining block, and a reload serves every use in a
  // block, where the block's pressure fits the registers.
  std::vector<Value>& stored_;        // the slot value holding this value's bits
  std::vector<uint8_t>& nosplit_;     // slot value whose pieces spilled again: one reload per use
  std::vector<Inst>& piece_def_;      // a reload or constant this allocator made for a split piece
  std::vector<uint8_t>& split_param_; // a block parameter made where split pieces meet (joins)
  std::vector<int>& block_pressure_;  // per block and bank: the most live at once (this round)
  // Per instruction of the round's graph: bit k is set where bank k's most live
  // at once passes its registers (C2's high-pressure region). A split piece
  // lives across no such instruction.
  std::vector<uint8_t>& hrp_;
  uint8_t HrpBits(Inst i) const { return i.index() < hrp_.size() ? hrp_[i.index()] : 0; }
  int BankOf(Value v) const { return t_.Class(*t_.ClassFor(f_.value_type(v))).bank; }
  bool Lrp(Block b, Value v) const {
    if (block_pressure_.empty()) return false;  // before the first graph
    const RegClassInfo& c = t_.Class(*t_.ClassFor(f_.value_type(v)));
    return block_pressure_[b.index() * t_.num_banks() + c.bank] <= t_.Bank(c.bank).capacity;
  }
  bool Splitting() const { return o_.split && round_ <= kSplitRounds; }
  // A round reads the live sets while it builds its graph (the first round
  // until its constants are made again): after that a large function's go
  // (base/warm_buffers.h), and the next round computes its own.
  void ReleaseLiveSetsIfLarge() {
    if (f_.num_insts() > kWarmBufferInsts) sets_.Release();
  }
  // Splitting in the first round only: later rounds spill few live ranges,
  // and their split pieces spilling again cost a full round each.
  static constexpr int kSplitRounds = 1;
  std::vector<std::pair<Value, Value>>& forced_;  // Reuse defs and their sources

  // Per round: the graph's nodes (live ranges in registers).
  std::vector<uint32_t>& node_of_;    // by value; kNoNode for stack values
  std::vector<uint32_t>& alias_;      // coalesced nodes point to their survivor
  // With dumps on: the round's simplify order, each live range with how it left
  // the graph ('l' low degree, 'o' blocked and pushed optimistically, 's' blocked
  // and spilled at once), and select's outcome for those that found no register.
  std::vector<std::pair<uint32_t, char>>& simplify_log_;
  std::vector<RegClass>& cls_;
  std::vector<RegSet>& mask_;
  std::vector<double>& cost_;
  std::vector<double>& area_;
  std::vector<uint8_t>& precolored_;
  std::vector<uint8_t>& node_temp_;
  std::vector<PReg>& color_;
  uint32_t spare_nodes_ = 0;         // graph nodes kept for constants made again
  std::vector<Inst>& const_def_;      // first round: each value's defining const, if any
  // How many registers of class A a neighbour can take: [A][key], the key a
  // class B (a node of B takes at most this many) or num_classes + a register
  // (a node fixed to it takes this many).
  std::vector<int>& cover_;
  std::vector<int64_t>& weight_;      // by block
  // A block's instructions being rewritten (a copy) and the new list.
  std::vector<Inst>& insts_;
  std::vector<Inst>& out_;
  // The function's control flow (the first round's BuildGraph computes it;
  // spill code adds no blocks or edges).
  CfgAnalyses& analyses_;
};

// Constraints become copies and precolored values (see the header, step 1).
absl::Status Chaitin::Prepare() {
  Grow();
  const int num_original = f_.num_values();
  std::vector<int>& uses = buf_.prepare_uses;
  uses.assign(num_original, 0);
  for (Block b : f_.layout()) {
    for (Inst i : f_.block(b).insts) {
      for (const Operand& op : f_.operands(i)) {
        if (op.IsUse()) ++uses[op.value().index()];
      }
    }
  }
  std::vector<Value>& rename = buf_.prepare_rename;
  rename.assign(num_original, Value());
  std::vector<uint8_t>& skip = buf_.prepare_skip;  // by Inst: copy-outs keep reading the original
  skip.clear();
  auto skip_inst = [&](Inst i) {
    if (skip.size() <= i.index()) skip.resize(i.index() + 1, 0);
    skip[i.index()] = 1;
  };
  auto copy_out = [&](Value v, std::vector<Inst>& where) {
    if (uses[v.index()] == 0) return;
    Value c = NewValueLike(v);
    Inst copy = Make(Opcode::kCopy, c, v);
    skip_inst(copy);
    where.push_back(copy);
    rename[v.index()] = c;
    ++stats_.constraint_copies;
  };
  std::vector<Inst>& top = buf_.prepare_top;
  top.clear();
  for (Operand& p : f_.block(f_.entry()).params) {
    Value v = p.value();
    if (p.constraint() == ConstraintKind::kFixed) {
      precolor_[v.index()] = p.fixed_reg();
      temp_[v.index()] = 1;
      copy_out(v, top);
    } else if (p.constraint() == ConstraintKind::kStack) {
      MarkStack(v, f_.NewStackSlot(TypeSize(f_.value_type(v))));
    }
  }
  std::vector<Inst>& before = buf_.prepare_before;
  before.clear();
  std::vector<Inst>& after = buf_.prepare_after;
  after.clear();
  for (Block b : f_.layout()) {
    if (b != f_.entry()) {
      for (Operand& p : f_.block(b).params) p = p.WithConstraint(ConstraintKind::kAny);
    }
    std::vector<Inst>& out = out_;
    out.clear();
    if (b == f_.entry()) out.assign(top.begin(), top.end());
    std::vector<Inst>& insts = insts_;
    insts = f_.block(b).insts;
    for (Inst i : insts) {
      const int fresh_from = f_.num_values();
      absl::InlinedVector<Operand, 8> ops(f_.operands(i).begin(), f_.operands(i).end());
      absl::InlinedVector<int, 8> use_at;  // operand index of each use
      // By value: making instructions below may move the function's arrays.
      const InstData d = f_.inst(i);
      const size_t first_arg = IsBranch(d.opcode) ? f_.NumNonArgOperands(i) : ops.size();
      before.clear();
      after.clear();
      absl::InlinedVector<std::pair<std::pair<Value, PReg>, Value>, 4> fixed_copies;
      for (size_t k = 0; k < ops.size(); ++k) {
        Operand& op = ops[k];
        if (!op.IsUse()) continue;
        use_at.push_back(static_cast<int>(k));
        Value v = op.value();
        if (k >= first_arg) {
          op = op.WithConstraint(ConstraintKind::kAny);  // an edge's parallel copy reads anything
          continue;
        }
        if (op.constraint() == ConstraintKind::kFixed) {
          // One value read twice from one register: one copy.
          Value c;
          for (const auto& [key, copy] : fixed_copies) {
            if (key.first == v && key.second == op.fixed_reg()) c = copy;
          }
          if (!c.IsValid()) {
            c = NewValueLike(v);
            before.push_back(Make(Opcode::kCopy, c, v));
            precolor_[c.index()] = op.fixed_reg();
            temp_[c.index()] = 1;
            fixed_copies.push_back({{v, op.fixed_reg()}, c});
            ++stats_.constraint_copies;
          }
          op.set_value(c);
        } else if (op.constraint() == ConstraintKind::kStack && !stack_[v.index()]) {
          Value s = NewValueLike(v);
          before.push_back(Make(Opcode::kSpill, s, v));
          MarkStack(s, f_.NewStackSlot(TypeSize(f_.value_type(v))));
          op.set_value(s);
          ++stats_.constraint_copies;
        }
      }
      for (size_t k = 0; k < ops.size(); ++k) {
        Operand& op = ops[k];
        if (!op.IsDef()) continue;
        Value v = op.value();
        switch (op.constraint()) {
          case ConstraintKind::kReuse: {
            if (op.reuse_index() >= static_cast<int>(use_at.size())) {
              return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": `", PrintInst(f_, i, t_),
                                                             "` reuses a use it does not have"));
            }
            Operand& src = ops[use_at[op.reuse_index()]];
            Value u = src.value();
            if (static_cast<int>(u.index()) < fresh_from) {  // not already a copy made for this instruction
              Value c = NewValueLike(u);
              before.push_back(Make(Opcode::kCopy, c, u));
              src.set_value(c);
              temp_[c.index()] = 1;
              u = c;
              ++stats_.constraint_copies;
            }
            forced_.push_back({v, u});
            Union(u, v);
            if (precolor_[u.index()].IsValid()) {  // the source was fixed: so is the def
              precolor_[v.index()] = precolor_[u.index()];
              temp_[v.index()] = 1;
              copy_out(v, after);
            }
            break;
          }
          case ConstraintKind::kFixed:
            precolor_[v.index()] = op.fixed_reg();
            temp_[v.index()] = 1;
            copy_out(v, after);
            break;
          case ConstraintKind::kStack:
            MarkStack(v, f_.NewStackSlot(TypeSize(f_.value_type(v))));
            break;
          default:
            break;
        }
      }
      if (!after.empty() && IsTerminator(d.opcode)) {
        return absl::UnimplementedError(absl::StrCat("function %", f_.name(), ": `", PrintInst(f_, i, t_),
                                                     "` defines a fixed register at the end of its block"));
      }
      f_.SetOperands(i, ops);
      out.insert(out.end(), before.begin(), before.end());
      out.push_back(i);
      out.insert(out.end(), after.begin(), after.end());
    }
    f_.block(b).insts.assign(out.begin(), out.end());
  }
  RenameUses(rename, skip);
  return RewriteStackUses();
}

void Chaitin::RenameUses(const std::vector<Value>& rename, const std::vector<uint8_t>& skip) {
  for (Block b : f_.layout()) {
    for (Inst i : f_.block(b).insts) {
      if (i.index() < skip.size() && skip[i.index()]) continue;
      for (Operand& op : f_.operands(i)) {
        if (!op.IsUse() || op.value().index() >= rename.size()) continue;
        Value r = rename[op.value().index()];
        if (r.IsValid()) op.set_value(r);
      }
    }
  }
}

// A register use of a value in a stack slot reads a reload just before its
// instruction; Any and Stack uses, copies, moves and branch arguments read the
// slot.
// Splitting across blocks (C2's reg_split keeps a spilled live range in a
// register through low-pressure regions): a loop whose blocks all fit a bank's
// registers, entered from one preheader that fits them too, reads a spilled
// value defined outside it from one reload at the end of the preheader, so the
// loop's iterations reload nothing. The value lived through the loop and the
// preheader's end before it spilled, so the reload adds no pressure there; the
// reload dominates the loop (the preheader is the header's only way in), so
// no block parameter is needed.
struct Chaitin::LoopReloads {
  LoopReloads(const Function& f, const Target& t, const ControlFlowGraph& cfg, const LoopNest& loops,
              const std::vector<int>& pressure)
      : loops(loops), nb(t.num_banks()) {
    const int nl = loops.num_loops();
    fits.assign(static_cast<size_t>(nl) * nb, 1);
    preheader.assign(nl, Block());
    for (Block b : f.layout()) {
      bool calls = false;
      for (Inst i : f.block(b).insts) calls |= f.inst(i).clobbers >= 0;
      for (int l = loops.innermost(b); l >= 0; l = loops.parent(l)) {
        for (int k = 0; k < nb; ++k) {
          // A call in the loop would take the register from the reload.
          if (calls || pressure[b.index() * nb + k] > t.Bank(k).capacity) fits[l * nb + k] = 0;
        }
      }
    }
    for (int l = 0; l < nl; ++l) {
      Block entry;
      int outside = 0;
      for (const Edge& e : cfg.preds(loops.header(l))) {
        if (!Contains(l, e.from)) {
          entry = e.from;
          ++outside;
        }
      }
      if (outside != 1 || cfg.succs(entry).size() != 1) {
        for (int k = 0; k < nb; ++k) fits[l * nb + k] = 0;
        continue;
      }
      preheader[l] = entry;
      for (int k = 0; k < nb; ++k) {
        if (pressure[entry.index() * nb + k] > t.Bank(k).capacity) fits[l * nb + k] = 0;
      }
    }
  }
  bool Contains(int l, Block b) const {
    for (int x = loops.innermost(b); x >= 0; x = loops.parent(x)) {
      if (x == l) return true;
    }
    return false;
  }
  // The outermost loop around `b` that fits `bank` and does not hold `def`,
  // or -1. (A loop around an unfitting one does not fit either.)
  int Around(Block b, int bank, Block def) const {
    int found = -1;
    for (int l = loops.innermost(b); l >= 0 && fits[l * nb + bank] && !Contains(l, def); l = loops.parent(l)) found = l;
    return found;
  }

  const LoopNest& loops;
  const int nb;                  // banks
  std::vector<uint8_t> fits;     // [loop][bank]
  std::vector<Block> preheader;  // by loop
  absl::flat_hash_map<uint64_t, Value> made;  // loop << 32 | slot value: its reload
};


void Chaitin::AnalyzeJoins(JoinPieces& j, const std::vector<Block>& stack_def) {
  const ControlFlowGraph& cfg = analyses_.cfg;
  const int nb = t_.num_banks();
  j.range.assign(f_.num_blocks(), {0, 0});
  j.uses.clear();
  j.clear.assign(static_cast<size_t>(f_.num_blocks()) * nb, 0);
  j.joinable.assign(f_.num_blocks(), 0);
  j.serve.clear();
  j.up_in.clear();
  j.up_out.clear();
  j.out.clear();
  j.entering.clear();
  j.params.clear();
  j.kept.clear();
  // Each block's reads, in block-index order (blocks out of the walk read nothing).
  struct Seen {
    uint32_t value;
    int bank;
    bool first_ok, ok_at_last;
    int barriers_at_last;  // the bank's barriers up to and with the last read's instruction
  };
  absl::InlinedVector<Seen, 16> in_block;
  int barriers[8];
  for (Block b : cfg.rpo()) {
    in_block.clear();
    std::fill(barriers, barriers + nb, 0);
    for (Inst i : f_.block(b).insts) {
      const InstData& d = f_.inst(i);
      const uint8_t bits = HrpBits(i);
      if (!IsMoveLike(d.opcode)) {
        absl::Span<const Operand> ops = f_.operands(i);
        const size_t first_arg = IsBranch(d.opcode) ? f_.NumNonArgOperands(i) : ops.size();
        for (size_t k = 0; k < ops.size(); ++k) {
          if (!PieceRead(ops, k, first_arg)) continue;
          const uint32_t v = ops[k].value().index();
          if (remat_[v].IsValid()) continue;  // constants are made again at each use
          Seen* s = nullptr;
          for (Seen& x : in_block) {
            if (x.value == v) s = &x;
          }
          const int bank = BankOf(ops[k].value());
          if (s == nullptr) {
            in_block.push_back(Seen{v, bank, barriers[bank] == 0, false, 0});
            s = &in_block.back();
          }
          s->ok_at_last = !(bits >> bank & 1);
          s->barriers_at_last = barriers[bank] + (bits >> bank & 1);
        }
      }
      for (int k = 0; k < nb; ++k) barriers[k] += bits >> k & 1;
    }
    for (int k = 0; k < nb; ++k) j.clear[b.index() * nb + k] = barriers[k] == 0;
    const uint32_t first = static_cast<uint32_t>(j.uses.size());
    for (const Seen& x : in_block) {
      j.uses.push_back(JoinPieces::Use{x.value, x.first_ok, x.ok_at_last && x.barriers_at_last == barriers[x.bank]});
    }
    std::sort(j.uses.begin() + first, j.uses.end(),
              [](const JoinPieces::Use& a, const JoinPieces::Use& c) { return a.value < c.value; });
    j.range[b.index()] = {first, static_cast<uint32_t>(j.uses.size())};
    // A new parameter needs every predecessor edge reachable, and room in
    // their branches' operand lists.
    bool ok = b != f_.entry() && !cfg.preds(b).empty();
    for (const Edge& e : cfg.preds(b)) {
      ok &= cfg.Reachable(e.from) && f_.operands(e.branch).size() < 60000;
    }
    j.joinable[b.index()] = ok;
  }
  // Backward: where a piece entering serves a read, and the most frequent
  // block reading it that a piece entering there could reach.
  std::vector<std::pair<Block, uint32_t>>& work = j.work;
  work.clear();
  for (Block b : cfg.rpo()) {
    for (uint32_t u = j.range[b.index()].first; u < j.range[b.index()].second; ++u) {
      const JoinPieces::Use& x = j.uses[u];
      if (!x.first_ok || stack_def[x.value] == b) continue;
      j.serve[JoinPieces::Key(b, x.value)] = weight_[b.index()];
      work.push_back({b, x.value});
    }
  }
  while (!work.empty()) {
    const auto [b, v] = work.back();
    work.pop_back();
    const int bank = BankOf(Value(v));
    const int64_t serve = j.serve[JoinPieces::Key(b, v)];
    for (const Edge& e : cfg.preds(b)) {
      const Block p = e.from;
      if (!cfg.Reachable(p) || stack_def[v] == p || !j.clear[p.index() * nb + bank] || j.Find(p, v) != nullptr) continue;
      int64_t& at = j.serve[JoinPieces::Key(p, v)];  // 0 when new
      if (serve <= at) continue;
      at = serve;
      work.push_back({p, v});
    }
  }
  // Forward, optimistically (the greatest solution, so that a loop's pieces
  // carry each other around it): every block wanting a piece takes one, then
  // those that cannot are taken out until none is left. A block with one
  // predecessor edge takes that edge's piece; a join takes a new parameter
  // where the edges without a piece, each reloading the slot value, run less
  // often than the most frequent read it serves: a loop's entry edge, not
  // its back edge, whose reload would run at every iteration. A block leaves
  // with a piece where it reads the value after its last barrier, or passes
  // on the piece it took without reading it.
  auto reads_late = [&](Block b, uint32_t v) {
    const JoinPieces::Use* x = j.Find(b, v);
    return x != nullptr && x->last_ok;
  };
  // A value kept in its register through its defining block (clear of
  // barriers: SpillEverywhere) leaves it in that register.
  const std::vector<Block>& keep_in = buf_.spill_everywhere_keep_in;
  for (size_t v = 0; v < keep_in.size(); ++v) {
    if (!keep_in[v].IsValid() || !stored_[v].IsValid()) continue;
    const uint32_t slot_value = stored_[v].index();
    if (remat_[slot_value].IsValid() || nosplit_[slot_value] ||
        !j.clear[keep_in[v].index() * nb + BankOf(Value(static_cast<uint32_t>(v)))]) {
      continue;
    }
    j.kept[JoinPieces::Key(keep_in[v], slot_value)] = Value(static_cast<uint32_t>(v));
  }
  auto leaves = [&](Block b, uint32_t v) {
    if (reads_late(b, v) || j.kept.contains(JoinPieces::Key(b, v))) return true;
    return j.Find(b, v) == nullptr && j.up_in.contains(JoinPieces::Key(b, v));
  };
  auto takes = [&](Block c, uint32_t v, int64_t serve) {
    absl::Span<const Edge> preds = cfg.preds(c);
    if (preds.size() == 1) return leaves(preds[0].from, v);
    if (!j.joinable[c.index()]) return false;
    int64_t reloading = 0;
    for (const Edge& e : preds) {
      if (!leaves(e.from, v)) reloading += weight_[e.from.index()];
    }
    return reloading < std::min(serve, weight_[c.index()]);
  };
  // Then a piece that reaches no read goes (where a successor would not
  // take it), and the joins are weighed again, until nothing changes.
  for (const auto& [key, serve] : j.serve) {
    j.up_in.insert(key);
    work.push_back({Block(static_cast<uint32_t>(key >> 32)), static_cast<uint32_t>(key)});
  }
  std::vector<uint64_t>& useless = j.useless;
  for (;;) {
    while (!work.empty()) {
      const auto [c, v] = work.back();
      work.pop_back();
      const uint64_t key = JoinPieces::Key(c, v);
      if (!j.up_in.contains(key) || takes(c, v, j.serve[key])) continue;
      j.up_in.erase(key);
      if (j.Find(c, v) != nullptr) continue;  // it reads v: what leaves does not change
      for (const Edge& e : cfg.succs(c)) {
        if (j.up_in.contains(JoinPieces::Key(e.to, v))) work.push_back({e.to, v});
      }
    }
    // Useful: a block taking a piece that reads it, or passes it to a useful one.
    absl::flat_hash_set<uint64_t>& useful = j.useful;
    useful.clear();
    for (uint64_t key : j.up_in) {
      const Block b(static_cast<uint32_t>(key >> 32));
      const uint32_t v = static_cast<uint32_t>(key);
      if (j.Find(b, v) != nullptr && useful.insert(key).second) work.push_back({b, v});
    }
    while (!work.empty()) {
      const auto [b, v] = work.back();
      work.pop_back();
      for (const Edge& e : cfg.preds(b)) {
        const uint64_t key = JoinPieces::Key(e.from, v);
        if (j.up_in.contains(key) && j.Find(e.from, v) == nullptr && useful.insert(key).second) work.push_back({e.from, v});
      }
    }
    useless.clear();
    for (uint64_t key : j.up_in) {
      if (!useful.contains(key)) useless.push_back(key);
    }
    if (useless.empty()) break;
    for (uint64_t key : useless) j.up_in.erase(key);
    for (uint64_t key : useless) {
      for (const Edge& e : cfg.succs(Block(static_cast<uint32_t>(key >> 32)))) {
        if (j.up_in.contains(JoinPieces::Key(e.to, static_cast<uint32_t>(key)))) {
          work.push_back({e.to, static_cast<uint32_t>(key)});
        }
      }
    }
    // Weigh the joins again, with those pieces gone.
    for (uint64_t key : j.up_in) work.push_back({Block(static_cast<uint32_t>(key >> 32)), static_cast<uint32_t>(key)});
  }
  for (uint64_t key : j.up_in) j.entering.push_back({static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key)});
  for (Block b : cfg.rpo()) {
    for (uint32_t u = j.range[b.index()].first; u < j.range[b.index()].second; ++u) {
      if (j.uses[u].last_ok) j.up_out.insert(JoinPieces::Key(b, j.uses[u].value));
    }
  }
  for (const auto& [key, v] : j.kept) j.up_out.insert(key);
  for (uint64_t key : j.up_in) {
    if (j.Find(Block(static_cast<uint32_t>(key >> 32)), static_cast<uint32_t>(key)) == nullptr) j.up_out.insert(key);
  }
  std::sort(j.entering.begin(), j.entering.end());
}

absl::Status Chaitin::RewriteStackUses() {
  // The blocks defining stack values, for the loop reloads and the joins.
  std::unique_ptr<LoopReloads> across;
  JoinPieces* joins = nullptr;
  std::vector<Block>& stack_def = buf_.rewrite_stack_uses_stack_def;
  stack_def.clear();
  if (Splitting() && !block_pressure_.empty()) {
    if (o_.joins && !hrp_.empty()) {
      joins = &buf_.joins;
    } else {
      across = std::make_unique<LoopReloads>(f_, t_, analyses_.cfg, analyses_.loops, block_pressure_);
    }
    stack_def.assign(f_.num_values(), Block());
    for (Block b : f_.layout()) {
      for (const Operand& p : f_.block(b).params) {
        if (stack_[p.value().index()]) stack_def[p.value().index()] = b;
      }
      for (Inst i : f_.block(b).insts) {
        for (const Operand& op : f_.operands(i)) {
          if (op.IsDef() && stack_[op.value().index()]) stack_def[op.value().index()] = b;
        }
      }
    }
  }
  // Split pieces in this block: a slot value's piece serves its next use when
  // no high-pressure instruction of its bank lies between (C2's split at HRP
  // boundaries, within the block): `seen` counts them by bank as the walk
  // passes them, and a piece keeps the count from before its last use (a
  // piece read by a high-pressure instruction ends there).
  struct Piece {
    Value of;     // the slot value
    Value piece;
    int seen;     // `seen` of its bank before its last use; -1: ended
  };
  std::vector<int>& seen = buf_.rewrite_stack_uses_seen;
  if (joins != nullptr) {
    AnalyzeJoins(*joins, stack_def);
    for (const auto& [key, v] : joins->kept) joins->out[key] = v;
  }
  // With joins, predecessors first (the pieces they pass on), then what is
  // unreachable.
  std::vector<Block>& order = buf_.rewrite_stack_uses_order;
  order.clear();
  if (joins != nullptr) {
    const ControlFlowGraph& cfg = analyses_.cfg;
    order = cfg.rpo();
    for (Block b : f_.layout()) {
      if (!cfg.Reachable(b)) order.push_back(b);
    }
  } else {
    order = f_.layout();
  }
  size_t entering = 0;  // into joins->entering
  for (Block b : order) {
    std::vector<Inst>& out = out_;
    out.clear();
    bool changed = false;
    std::vector<Inst>& insts = insts_;
    insts = f_.block(b).insts;
    absl::InlinedVector<Piece, 8> in_block;
    seen.assign(t_.num_banks(), 0);
    if (joins != nullptr) {
      // The pieces entering: one predecessor edge's own, or a new parameter.
      const ControlFlowGraph& cfg = analyses_.cfg;
      std::vector<std::pair<uint32_t, uint32_t>>& in = joins->entering;
      entering = std::lower_bound(in.begin(), in.end(), std::make_pair(b.index(), 0u)) - in.begin();
      for (; entering < in.size() && in[entering].first == b.index(); ++entering) {
        const Value v(in[entering].second);
        // One piece from every predecessor edge (all walked already): that
        // piece (its definition dominates them all, so it dominates b).
        Value piece, same;
        bool one = true;
        for (const Edge& e : cfg.preds(b)) {
          auto it = joins->out.find(JoinPieces::Key(e.from, v.index()));
          const Value from = it == joins->out.end() ? Value() : it->second;
          one &= from.IsValid() && (!same.IsValid() || same == from) && cfg.rpo_number(e.from) < cfg.rpo_number(b);
          same = from;
        }
        if (cfg.preds(b).size() == 1 && !same.IsValid()) continue;
        if (one) {
          piece = same;
          stats_.split_carried += static_cast<int>(cfg.preds(b).size());
        } else {
          piece = NewValueLike(v);
          f_.block(b).params.push_back(Operand::Def(piece));
          stored_[piece.index()] = v;
          split_param_[piece.index()] = 1;
          temp_[piece.index()] = 0;
          joins->params.push_back({b, v, piece});
          ++stats_.split_params;
        }
        in_block.push_back(Piece{v, piece, 0});
      }
    }
    auto passed = [&](Inst i) {  // after each instruction of the block
      const uint8_t bits = HrpBits(i);
      for (int k = 0; bits != 0 && k < t_.num_banks(); ++k) seen[k] += bits >> k & 1;
    };
    for (Inst i : insts) {
      const InstData d = f_.inst(i);  // by value: NewInst below may move the array
      if (IsMoveLike(d.opcode)) {
        out.push_back(i);
        passed(i);
        continue;
      }
      const size_t first_arg = IsBranch(d.opcode) ? f_.NumNonArgOperands(i) : f_.operands(i).size();
      absl::InlinedVector<Operand, 8> ops(f_.operands(i).begin(), f_.operands(i).end());
      absl::InlinedVector<std::pair<Value, Value>, 4> reloaded;  // (stack value, reload)
      absl::InlinedVector<int, 8> use_at;
      bool rewrote = false;
      for (size_t k = 0; k < ops.size(); ++k) {
        Operand& op = ops[k];
        if (!op.IsUse()) continue;
        use_at.push_back(static_cast<int>(k));
        Value v = op.value();
        if (!stack_[v.index()] || k >= first_arg) continue;
        if (op.constraint() == ConstraintKind::kAny || op.constraint() == ConstraintKind::kStack) continue;
        if (op.constraint() == ConstraintKind::kFixed) return Error("a fixed use reads a stack value");
        Value t;
        for (const auto& [s, r] : reloaded) {
          if (s == v) t = r;
        }
        const int bank = BankOf(v);
        const bool split = PieceRead(ops, k, first_arg);
        // A piece may live on past this instruction only where it is not high-pressure.
        const bool share = split && !(HrpBits(i) >> bank & 1);
        // (Constants are made again at their uses instead: that costs no load.)
        if (!t.IsValid() && share && across != nullptr && v.index() < stack_def.size() &&
            stack_def[v.index()].IsValid() && !remat_[v.index()].IsValid()) {
          const int l = across->Around(b, bank, stack_def[v.index()]);
          if (l >= 0) {
            const uint64_t key = uint64_t{static_cast<uint32_t>(l)} << 32 | v.index();
            if (auto it = across->made.find(key); it != across->made.end()) t = it->second;
            if (!t.IsValid()) {
              t = NewValueLike(v);
              const Inst made = Make(Opcode::kReload, t, v);
              ++stats_.reloads;
              std::vector<Inst>& pre = f_.block(across->preheader[l]).insts;
              pre.insert(pre.end() - 1, made);
              temp_[t.index()] = 0;
              stored_[t.index()] = v;
              piece_def_[t.index()] = made;
              across->made.emplace(key, t);
              ++stats_.loop_reloads;
            }
            reloaded.push_back({v, t});
          }
        }
        Piece* piece = nullptr;  // v's in this block
        if (split) {
          for (Piece& p : in_block) {
            if (p.of == v) piece = &p;
          }
        }
        if (!t.IsValid() && piece != nullptr && piece->seen == seen[bank]) {
          t = piece->piece;
          if (!share) piece->seen = -1;  // read here, it ends here
        }
        if (!t.IsValid()) {
          t = NewValueLike(v);
          if (remat_[v.index()].IsValid()) {
            out.push_back(MakeConstAgain(remat_[v.index()], t));
            ++stats_.remats;
          } else {
            out.push_back(Make(Opcode::kReload, t, v));
            ++stats_.reloads;
          }
          temp_[t.index()] = !share;
          reloaded.push_back({v, t});
          if (share) {
            if (piece == nullptr) {
              in_block.push_back(Piece{v, t, seen[bank]});
            } else {
              *piece = Piece{v, t, seen[bank]};
            }
            stored_[t.index()] = v;
            piece_def_[t.index()] = out.back();
          } else if (piece != nullptr) {
            piece->seen = -1;
          }
        }
        op.set_value(t);
        rewrote = true;
      }
      if (rewrote) {
        // A reloaded two-address source: the def shares the reload's register.
        for (const Operand& op : ops) {
          if (!op.IsDef() || op.constraint() != ConstraintKind::kReuse) continue;
          Value src = ops[use_at[op.reuse_index()]].value();
          for (const auto& [s, r] : reloaded) {
            if (r == src) {
              forced_.push_back({op.value(), r});
              Union(r, op.value());
            }
          }
        }
        f_.SetOperands(i, ops);
        changed = true;
      }
      out.push_back(i);
      passed(i);
    }
    if (changed) f_.block(b).insts.assign(out.begin(), out.end());
    if (joins != nullptr) {
      // The pieces leaving, where a successor wants them.
      for (const Piece& p : in_block) {
        if (joins->kept.contains(JoinPieces::Key(b, p.of.index()))) continue;
        if (p.seen == seen[BankOf(p.of)] && joins->up_out.contains(JoinPieces::Key(b, p.of.index()))) {
          joins->out[JoinPieces::Key(b, p.of.index())] = p.piece;
        }
      }
    }
  }
  if (joins != nullptr) {
    // Each new parameter's arguments: the predecessor's piece, or the slot value.
    const ControlFlowGraph& cfg = analyses_.cfg;
    for (const JoinPieces::Param& p : joins->params) {
      std::string edges;
      for (const Edge& e : cfg.preds(p.block)) {
        auto it = joins->out.find(JoinPieces::Key(e.from, p.of.index()));
        const bool piece = it != joins->out.end();
        stats_.split_carried += piece;
        const Operand arg = Operand::Use(piece ? it->second : p.of);
        f_.SpliceBranchArgs(e.branch, e.target, f_.targets(e.branch)[e.target].num_args, 0, absl::MakeConstSpan(&arg, 1));
        if (o_.dump) {
          absl::StrAppend(&edges, edges.empty() ? "" : ", ", f_.BlockName(e.from), " ",
                          piece ? f_.ValueName(it->second) : absl::StrCat(f_.ValueName(p.of), " (reloads)"));
        }
      }
      // --print: each join's new parameter and what its edges pass.
      if (o_.dump) {
        absl::StrAppend(&stats_.printed, "  split at ", f_.BlockName(p.block), ": ", f_.ValueName(p.param), " for ",
                        f_.ValueName(p.of), " from ", edges, "\n");
      }
    }
    // Read once per function: after a large one its lists go before the
    // next round's graph (base/warm_buffers.h).
    if (f_.num_insts() > kWarmBufferInsts) *joins = JoinPieces();
  }
  return absl::OkStatus();
}

// Step 2 and 3: nodes, masks, cost, area and the interference graph.
absl::Status Chaitin::BuildGraph() {
  const int nv = f_.num_values();
  // The control flow is the verifier's (ChaitinAllocator::Coalesce): the
  // constraint copies, spill code, split parameters and constants made again
  // add no blocks or edges.
  const ControlFlowGraph& cfg = analyses_.cfg;
  // Values in stack slots have no node: the sets leave them out.
  sets_.Compute(f_, cfg, stack_);
  weight_.assign(f_.num_blocks(), 1);
  for (Block b : f_.layout()) weight_[b.index()] = analyses_.loops.Weight(b);

  // Nodes: one per live range of register values defined in the layout.
  node_of_.assign(nv, kNoNode);
  Buffers::BuildGraphScratch& scratch = buf_.build_graph;
  std::vector<uint32_t>& node_of_root = scratch.node_of_root;
  node_of_root.assign(nv, kNoNode);
  ClearAll(cls_, mask_, precolored_, node_temp_, color_, alias_, cost_, area_);
  // Calls f(v) for each value defined in the layout (parameters and defs),
  // in layout order; stops at f's first error.
  auto for_each_def = [&](auto&& f) -> absl::Status {
    for (Block b : f_.layout()) {
      for (const Operand& p : f_.block(b).params) RA_RETURN_IF_ERROR(f(p.value()));
      for (Inst i : f_.block(b).insts) {
        for (const Operand& op : f_.operands(i)) {
          if (op.IsDef()) RA_RETURN_IF_ERROR(f(op.value()));
        }
      }
    }
    return absl::OkStatus();
  };
  // The per-node lists are reserved, not doubled as nodes come (at a million
  // instructions they took 2.1M entries each for 1.4M nodes, a hundred bytes
  // an entry): where they might grow (they hold less than a node per value
  // and the constants made again), for that many, or above kCountNodesAbove
  // values for the nodes counted first (a live range's root marked once;
  // the count's pass cost small functions 1.5% of their time).
  const size_t most_nodes = static_cast<size_t>(nv) + spare_nodes_;
  if (cls_.capacity() < most_nodes) {
    size_t nodes = static_cast<size_t>(nv);
    if (most_nodes > kCountNodesAbove) {
      nodes = 0;
      (void)for_each_def([&](Value v) {
        if (stack_[v.index()]) return absl::OkStatus();
        uint32_t& n = node_of_root[Find(v.index())];
        if (n == kNoNode) {
          n = 0;  // counted
          ++nodes;
        }
        return absl::OkStatus();
      });
      node_of_root.assign(nv, kNoNode);
    }
    ReserveAll(nodes + spare_nodes_, cls_, mask_, precolored_, node_temp_, color_, alias_, cost_, area_);
  }
  auto add_value = [&](Value v) -> absl::Status {
    if (stack_[v.index()]) return absl::OkStatus();
    uint32_t root = Find(v.index());
    uint32_t& n = node_of_root[root];
    std::optional<RegClass> cls = t_.ClassFor(f_.value_type(v));
    if (!cls.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("function %", f_.name(), ": ", f_.ValueName(v), " of type ",
                                                     TypeName(f_.value_type(v)), " has no register class"));
    }
    if (n == kNoNode) n = NewNode(*cls);
    node_of_[v.index()] = n;
    if (!temp_[v.index()]) node_temp_[n] = 0;
    if (precolor_[v.index()].IsValid()) {
      if (precolored_[n] && color_[n] != precolor_[v.index()]) return Error("one live range is fixed to two registers");
      precolored_[n] = 1;
      color_[n] = precolor_[v.index()];
      RegSet only;
      only.Insert(precolor_[v.index()]);
      mask_[n] = only;
    }
    return absl::OkStatus();
  };
  RA_RETURN_IF_ERROR(for_each_def(add_value));
  const uint32_t nn = static_cast<uint32_t>(cls_.size());
  // Room for the nodes RematerializeConstantArguments may add to this graph.
  g_.Reset(static_cast<int>(nn + spare_nodes_), o_.graph_matrix_max_bytes, o_.graph_dense_row_words);

  // The walk. `live[k]` holds the live nodes of bank k (a def's row takes
  // them a word at a time); `pressure` the bank slots they take, whose most
  // per block decides where splitting keeps values. As in C2
  // (interfere_with_live), a node interferes only with nodes whose registers
  // it could share: those of its own bank.
  const int nbanks = t_.num_banks();
  if (nbanks > 8) return Error("the target has more than 8 register banks");
  std::vector<NodeSet>& live = scratch.live;
  if (static_cast<int>(live.size()) < nbanks) live.resize(nbanks);
  for (NodeSet& l : live) l.Reset(static_cast<int>(nn));
  std::vector<int>& pressure = scratch.pressure;
  pressure.assign(nbanks, 0);
  scratch.spared.clear();  // clobber sets are the function's
  block_pressure_.assign(static_cast<size_t>(f_.num_blocks()) * nbanks, 0);
  // Only splitting reads the high-pressure marks.
  const bool mark = Splitting();
  if (mark) {
    hrp_.assign(f_.num_insts(), 0);
  } else {
    hrp_.clear();
  }
  int* block_max = nullptr;
  std::vector<int>& inst_max = scratch.inst_max;  // the instruction being walked's most live
  inst_max.assign(nbanks, 0);
  double time = 0;
  // Each node's bank and bank slots, at hand (the walk asks for them at each
  // live-out value of each block).
  std::vector<std::pair<uint8_t, uint8_t>>& bank_weight = scratch.bank_weight;
  bank_weight.resize(nn);
  std::vector<double>& enter = scratch.enter;
  enter.assign(nn, 0.0);
  for (uint32_t n = 0; n < nn; ++n) {
    const RegClassInfo& c = t_.Class(cls_[n]);
    bank_weight[n] = {static_cast<uint8_t>(c.bank), static_cast<uint8_t>(c.pressure_weight)};
  }
  auto bank_of = [&](uint32_t n) { return bank_weight[n].first; };
  auto add = [&](uint32_t n) {
    if (n == kNoNode) return;
    const auto [bank, weight] = bank_weight[n];
    if (!live[bank].Insert(n)) return;
    enter[n] = time;
    pressure[bank] += weight;
    if (block_max != nullptr) block_max[bank] = std::max(block_max[bank], pressure[bank]);
    inst_max[bank] = std::max(inst_max[bank], pressure[bank]);
  };
  // n's live range ends here (the walk's `time`): its area and pressure.
  auto leave = [&](uint32_t n) {
    pressure[bank_weight[n].first] -= bank_weight[n].second;
    area_[n] += time - enter[n];
  };
  auto remove = [&](uint32_t n) {
    if (n != kNoNode && live[bank_of(n)].Erase(n)) leave(n);
  };
  uint32_t fixed_clobbered = kNoNode;  // the lowest fixed node living across a clobber of its register
  std::vector<uint32_t>& stamp = scratch.stamp;  // by node: the last block whose live-out set held it
  stamp.assign(nn, kNoNode);
  std::vector<uint32_t>& stale = scratch.stale;
  // An edge between two nodes of one bank.
  auto edge = [&](uint32_t n, uint32_t m) {
    if (m != kNoNode && bank_of(n) == bank_of(m)) g_.AddEdge(n, m);
  };
  for (Block b : f_.layout()) {
    const double w = static_cast<double>(weight_[b.index()]);
    block_max = &block_pressure_[b.index() * nbanks];
    // The live set becomes b's live-out set: what the walk of the block
    // before left live (its live-in) and b's live-out do not share leaves
    // (its range ended at the top of that block, this same time); the rest
    // stays, and the long-lived nodes do not leave and come back at each block.
    // (One pass stamps and adds: the block's most pressure is taken once
    // the stale nodes are gone, not as each node comes.)
    for (Value v : sets_.LiveOut(b)) {
      const uint32_t n = node_of_[v.index()];
      if (n == kNoNode) continue;
      stamp[n] = b.index();
      const auto [bank, weight] = bank_weight[n];
      if (!live[bank].Insert(n)) continue;
      enter[n] = time;
      pressure[bank] += weight;
    }
    for (NodeSet& l : live) {
      stale.clear();
      l.ForEach([&](uint32_t n) {
        if (stamp[n] != b.index()) stale.push_back(n);
      });
      for (uint32_t n : stale) remove(n);
    }
    for (int k = 0; k < nbanks; ++k) block_max[k] = std::max(block_max[k], pressure[k]);
    const std::vector<Inst>& insts = f_.block(b).insts;
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      Inst i = *it;
      const InstData& d = f_.inst(i);
      absl::Span<const Operand> ops = f_.operands(i);
      if (mark) inst_max = pressure;  // what lives across i, then what i reads
      // The copy rule: a copy's def does not interfere with its source.
      uint32_t copy_src = kNoNode;
      if ((d.opcode == Opcode::kCopy || IsMoveLike(d.opcode)) && ops.size() == 2 && ops[1].IsUse()) {
        copy_src = node_of_[ops[1].value().index()];
      }
      auto define = [&](const Operand& def) {
        uint32_t n = node_of_[def.value().index()];
        if (n == kNoNode) return;
        g_.AddEdges(n, live[bank_of(n)], copy_src);
        for (const Operand& other : ops) {  // defs of one instruction never share
          if (other.IsDef()) edge(n, node_of_[other.value().index()]);
        }
        add(n);  // a dead def still occupies its register here
        remove(n);
        cost_[n] += w;
      };
      auto read = [&](const Operand& use) {
        uint32_t n = node_of_[use.value().index()];
        if (n == kNoNode) return;
        add(n);
        cost_[n] += 2 * w;
      };
      for (const Operand& op : ops) {
        if (op.IsDef() && op.position() == Position::kLate) define(op);
      }
      for (const Operand& op : ops) {
        if (op.IsUse() && op.position() == Position::kLate) read(op);
      }
      if (d.clobbers >= 0) {
        // What lives across a clobber leaves its registers out of its mask;
        // a live range fixed to one of them cannot be allocated (the first
        // such node is named once the walk is done).
        RegSet hit;
        for (PReg r : f_.clobber_set(d.clobbers)) hit |= t_.Aliases(r);
        // A call is high-pressure for a bank where more of its values live
        // across it than the registers it spares hold: a split piece does
        // not live across it there (C2 splits around calls).
        if (mark) {
          std::vector<int>& spared = scratch.spared;  // by clobber set and bank, -1 until asked
          const size_t at = static_cast<size_t>(d.clobbers) * nbanks;
          if (spared.size() < at + nbanks) spared.resize(at + nbanks, -1);
          if (spared[at] < 0) {
            for (int k = 0; k < nbanks; ++k) spared[at + k] = 0;
            for (int c = 0; c < t_.num_classes(); ++c) {
              const RegClassInfo& info = t_.Class(RegClass(c));
              RegSet left = info.counted;
              left.Subtract(hit);
              spared[at + info.bank] = std::max(spared[at + info.bank], left.Count() * info.pressure_weight);
            }
          }
          for (int k = 0; k < nbanks; ++k) {
            if (pressure[k] > spared[at + k]) hrp_[i.index()] |= static_cast<uint8_t>(1u << k);
          }
        }
        for (const NodeSet& l : live) {
          l.ForEach([&](uint32_t x) {
            if (!precolored_[x]) {
              mask_[x].Subtract(hit);
            } else if (hit.Contains(color_[x])) {
              fixed_clobbered = std::min(fixed_clobbered, x);
            }
          });
        }
      }
      for (const Operand& op : ops) {
        if (op.IsDef() && op.position() == Position::kEarly) define(op);
      }
      for (const Operand& op : ops) {
        if (op.IsUse() && op.position() == Position::kEarly) read(op);
      }
      for (int k = 0; mark && k < nbanks; ++k) {
        if (inst_max[k] > t_.Bank(k).capacity) hrp_[i.index()] |= static_cast<uint8_t>(1u << k);
      }
      time += w;
    }
    // Parameters are defined together at the block's start, where the live-in
    // values also live; the edge's moves go before the branch of a predecessor
    // with one successor, so they must not land on what that branch reads.
    const std::vector<Operand>& params = f_.block(b).params;
    for (const Operand& p : params) {
      uint32_t n = node_of_[p.value().index()];
      if (n == kNoNode) continue;
      g_.AddEdges(n, live[bank_of(n)], n);
      for (const Operand& q : params) edge(n, node_of_[q.value().index()]);
      if (b != f_.entry()) {
        for (const Edge& e : cfg.preds(b)) {
          if (cfg.succs(e.from).size() != 1) continue;
          absl::Span<const Operand> bops = f_.operands(e.branch);
          for (size_t k = 0; k < f_.NumNonArgOperands(e.branch); ++k) {
            if (bops[k].IsUse()) edge(n, node_of_[bops[k].value().index()]);
          }
        }
      }
      cost_[n] += w;
    }
    for (const Operand& p : params) remove(node_of_[p.value().index()]);
  }
  for (NodeSet& l : live) {
    l.ForEach(leave);
    l.Clear();
  }
  g_.Finish();
  if (fixed_clobbered != kNoNode) {
    return Error(absl::StrCat("a fixed register lives across a clobber of it: {", Members(fixed_clobbered), "} in %",
                              t_.RegName(color_[fixed_clobbered])));
  }
  stats_.live_ranges = static_cast<int>(nn);
  stats_.edges = static_cast<int>(g_.num_edges());
  stats_.graph_bytes = std::max(stats_.graph_bytes, g_.MemoryBytes());
  ReleaseAfterLargeFunction(f_.num_insts(), scratch);
  return absl::OkStatus();
}

void Chaitin::MergeNodes(uint32_t a, uint32_t b) {
  g_.Merge(a, b);
  alias_[b] = a;
  mask_[a] &= mask_[b];
  cost_[a] += cost_[b];
  area_[a] += area_[b];
  node_temp_[a] = node_temp_[a] && node_temp_[b];
  if (precolored_[b]) {
    precolored_[a] = 1;
    color_[a] = color_[b];
  }
}

// Can `a` and `b` become one live range: no interference, one class, a common
// register, not two fixed ones, and where one is fixed, no neighbour of the
// other fixed to an overlapping register?
bool Chaitin::Compatible(uint32_t a, uint32_t b) const {
  if (a == b || cls_[a] != cls_[b] || g_.Interferes(a, b) || (mask_[a] & mask_[b]).Empty()) return false;
  if (precolored_[a] && precolored_[b]) return false;
  if (!precolored_[a] && !precolored_[b]) return true;
  uint32_t fixed = precolored_[a] ? a : b, other = precolored_[a] ? b : a;
  bool compatible = true;
  g_.ForEachNeighbor(other, [&](uint32_t m) {
    if (alias_[m] == m && precolored_[m] && t_.Units(color_[m]).Intersects(t_.Units(color_[fixed]))) {
      compatible = false;
    }
    return compatible;
  });
  return compatible;
}

void Chaitin::AggressiveCoalesce() {
  const ControlFlowGraph& cfg = analyses_.cfg;
  for (Block b : f_.layout()) {
    if (b == f_.entry()) continue;
    const std::vector<Operand>& params = f_.block(b).params;
    for (const Edge& e : cfg.preds(b)) {
      absl::Span<const Operand> ops = f_.operands(e.branch);
      const size_t first = f_.targets(e.branch)[e.target].first_arg;
      for (size_t k = 0; k < params.size(); ++k) {
        Value p = params[k].value(), a = ops[first + k].value();
        uint32_t np = NodeOf(p), na = NodeOf(a);
        if (np == kNoNode || na == kNoNode || !Compatible(np, na)) continue;
        MergeNodes(np, na);
        Union(p, a);
        ++stats_.aggressive;
      }
    }
  }
}

// C2's insert_copies for a constant: where a branch argument defined by `const`
// did not coalesce with its parameter, the predecessor makes the constant again
// just before its branch and passes that (a short live range the parameter can
// coalesce with) instead of keeping the original live to the edge for a move.
// Returns how many arguments it replaced.
int Chaitin::RematerializeConstantArguments() {
  int made = 0;
  buf_.add_constant_node_meets.Reset(g_.num_nodes());
  for (Block b : f_.layout()) {
    std::vector<Inst>& insts = f_.block(b).insts;
    if (insts.empty()) continue;
    const Inst branch = insts.back();
    // A copy: making instructions below may move the function's target pool.
    const absl::InlinedVector<BranchTarget, 2> targets(f_.targets(branch).begin(), f_.targets(branch).end());
    std::vector<Inst>& consts = buf_.rematerialize_constant_arguments_consts;
    consts.clear();
    for (const BranchTarget& target : targets) {
      const std::vector<Operand>& params = f_.block(target.block).params;
      for (size_t k = 0; k < target.num_args && k < params.size(); ++k) {
        const Operand arg = f_.operands(branch)[target.first_arg + k];
        const Value a = arg.value(), p = params[k].value();
        if (a.index() >= const_def_.size() || !const_def_[a.index()].IsValid()) continue;
        const uint32_t na = NodeOf(a), np = NodeOf(p);
        if (na == kNoNode || np == kNoNode || na == np) continue;
        const Value again = NewValueLike(a);
        consts.push_back(MakeConstAgain(const_def_[a.index()], again));
        f_.operands(branch)[target.first_arg + k].set_value(again);
        AddConstantNode(b, branch, again, na, arg.position());
        ++stats_.remat_args;
        ++made;
      }
    }
    insts.insert(insts.end() - 1, consts.begin(), consts.end());
  }
  return made;
}

// The live range of `v`, a constant made again just before `branch` (the
// last instruction of `b`) for one of its arguments, into the current graph
// as BuildGraph would put it: it interferes with what lives out of `b` and
// what the branch reads (of its bank) and, read late, with the branch's early defs and
// clobbers. Like `of` (the original's node): the original keeps its edges
// (it lives no longer now; more edges than needed are safe).
void Chaitin::AddConstantNode(Block b, Inst branch, Value v, uint32_t of, Position read_at) {
  const uint32_t n = NewNode(cls_[of]);
  if (node_of_.size() <= v.index()) node_of_.resize(v.index() + 1, kNoNode);
  node_of_[v.index()] = n;
  const double w = static_cast<double>(weight_[b.index()]);
  cost_[n] = 3 * w;  // a def and a use
  area_[n] = w;
  node_temp_[n] = 0;
  // The nodes it meets, gathered and added in one batch (the new row in
  // order, not an insertion per live-out value).
  NodeSet& meets = buf_.add_constant_node_meets;  // sized by RematerializeConstantArguments
  auto edge = [&](Value x) {
    const uint32_t m = NodeOf(x);
    if (m != kNoNode && m != n && t_.Class(cls_[m]).bank == t_.Class(cls_[n]).bank) meets.Insert(m);
  };
  for (Value x : sets_.LiveOut(b)) edge(x);
  const InstData& d = f_.inst(branch);
  for (const Operand& op : f_.operands(branch)) {
    if (op.IsUse() || (read_at == Position::kLate && op.position() == Position::kEarly)) edge(op.value());
  }
  g_.AddEdges(n, meets, n);
  meets.Clear();
  if (read_at == Position::kLate && d.clobbers >= 0) {
    for (PReg r : f_.clobber_set(d.clobbers)) mask_[n].Subtract(t_.Aliases(r));
  }
}

// Briggs's test: the merged node has fewer than k neighbours of significant
// degree (k or more), so it can always be simplified. Where one side is fixed
// to a register (it is never simplified), George's test instead.
void Chaitin::ConservativeCoalesce() {
  // The pairs: each copy, and each split parameter (made where pieces meet)
  // with its arguments, which aggressive coalescing, first round only, never saw.
  const ControlFlowGraph& cfg = analyses_.cfg;
  std::vector<std::pair<Value, Value>>& pairs = buf_.conservative_pairs;  // (def, source)
  pairs.clear();
  for (Block b : f_.layout()) {
    for (const Operand& p : f_.block(b).params) {
      if (!split_param_[p.value().index()]) continue;
      const size_t k = &p - f_.block(b).params.data();
      for (const Edge& e : cfg.preds(b)) pairs.push_back({p.value(), f_.BranchArgs(e.branch, e.target)[k].value()});
    }
    for (Inst i : f_.block(b).insts) {
      if (f_.inst(i).opcode != Opcode::kCopy) continue;
      absl::Span<const Operand> ops = f_.operands(i);
      if (ops.size() != 2) continue;
      pairs.push_back({ops[0].value(), ops[1].value()});
    }
  }
  for (const auto& [def, src] : pairs) {
    uint32_t nd = NodeOf(def), ns = NodeOf(src);
    if (nd == kNoNode || ns == kNoNode || !Compatible(nd, ns)) continue;
    if (precolored_[nd] || precolored_[ns]) {
      // George's test for a fixed register: every neighbour of the other
      // already interferes with the fixed one, or has insignificant degree.
      uint32_t fixed = precolored_[nd] ? nd : ns, other = precolored_[nd] ? ns : nd;
      bool safe = true;
      g_.ForEachNeighbor(other, [&](uint32_t m) {
        if (alias_[m] != m || precolored_[m] || g_.Interferes(m, fixed)) return true;
        safe = g_.Degree(m) < mask_[m].Count();
        return safe;
      });
      if (!safe) continue;
      MergeNodes(fixed, other);
      Union(src, def);
      ++stats_.conservative;
      continue;
    }
    // Walk both rows in order, counting each neighbour once, and stop at k
    // significant ones (a long-lived value's row spans the function).
    const int k = (mask_[nd] & mask_[ns]).Count();
    int significant = 0;
    if (k > 0) {
      g_.ForEachNeighborOfEither(nd, ns, [&](uint32_t m) {
        if (alias_[m] == m && (precolored_[m] || g_.Degree(m) >= mask_[m].Count())) ++significant;
        return significant < k;
      });
    }
    if (significant >= k) continue;
    // The survivor is the source's node, so that the copy's def joins it.
    MergeNodes(ns, nd);
    Union(src, def);
    ++stats_.conservative;
  }
}

void Chaitin::CopyPartners() {
  std::vector<Buffers::CopyPair>& pairs = buf_.color_copy_pairs;
  pairs.clear();
  auto pair = [&](Value a, Value b, double w) {
    if (a.index() >= node_of_.size() || b.index() >= node_of_.size()) return;
    const uint32_t x = NodeOf(a), y = NodeOf(b);
    if (x == kNoNode || y == kNoNode || x == y) return;
    pairs.push_back({x, y, w});
  };
  const ControlFlowGraph& cfg = analyses_.cfg;
  // Within a block, a reload of a slot and the value that last held the
  // slot's bits there (the stored value, or the previous reload): in one
  // register, the later reload moves nothing (the copy removal after Assign).
  std::vector<Value>& last = buf_.color_last_in_slot;
  if (last.size() < static_cast<size_t>(f_.num_values())) last.resize(f_.num_values());
  std::vector<Value>& touched = buf_.color_slots_touched;
  for (Block b : f_.layout()) {
    const double w = static_cast<double>(weight_[b.index()]);
    for (Inst i : f_.block(b).insts) {
      absl::Span<const Operand> ops = f_.operands(i);
      if (ops.size() != 2 || !ops[0].IsDef() || !ops[1].IsUse()) continue;
      const Opcode op = f_.inst(i).opcode;
      if (op == Opcode::kCopy) {
        pair(ops[0].value(), ops[1].value(), w);
      } else if (op == Opcode::kSpill || op == Opcode::kReload) {
        const Value slot = op == Opcode::kSpill ? ops[0].value() : ops[1].value();
        const Value in_reg = op == Opcode::kSpill ? ops[1].value() : ops[0].value();
        if (op == Opcode::kReload && last[slot.index()].IsValid()) pair(in_reg, last[slot.index()], w);
        if (!last[slot.index()].IsValid()) touched.push_back(slot);
        last[slot.index()] = in_reg;
      }
    }
    for (Value v : touched) last[v.index()] = Value();
    touched.clear();
    if (b == f_.entry()) continue;
    const std::vector<Operand>& params = f_.block(b).params;
    for (const Edge& e : cfg.preds(b)) {
      absl::Span<const Operand> ops = f_.operands(e.branch);
      const size_t first = f_.targets(e.branch)[e.target].first_arg;
      for (size_t k = 0; k < params.size() && first + k < ops.size(); ++k) {
        pair(params[k].value(), ops[first + k].value(), static_cast<double>(weight_[e.from.index()]));
      }
    }
  }
  // Each pair in both nodes' rows, each row in the walk's order.
  const size_t nn = cls_.size();
  std::vector<uint32_t>& start = buf_.color_partner_start;
  start.assign(nn + 1, 0);
  for (const Buffers::CopyPair& p : pairs) {
    ++start[p.x + 1];
    ++start[p.y + 1];
  }
  for (size_t n = 1; n <= nn; ++n) start[n] += start[n - 1];
  std::vector<std::pair<uint32_t, double>>& partners = buf_.color_partners;
  partners.resize(2 * pairs.size());
  std::vector<uint32_t>& at = buf_.color_copy_pairs_at;
  at.assign(start.begin(), start.end() - 1);
  for (const Buffers::CopyPair& p : pairs) {
    partners[at[p.x]++] = {p.y, p.weight};
    partners[at[p.y]++] = {p.x, p.weight};
  }
  // After a large function the pairs go before coloring takes its buffers
  // (base/warm_buffers.h): the first round's coloring, beside the largest
  // graph, is the allocator's peak.
  if (f_.num_insts() > kWarmBufferInsts) {
    std::vector<Buffers::CopyPair>().swap(pairs);
    std::vector<uint32_t>().swap(at);
  }
}

// Step 6: simplify (Briggs or Chaitin) and select.
absl::Status Chaitin::Color(std::vector<uint32_t>& spilled) {
  const uint32_t nn = static_cast<uint32_t>(cls_.size());
  std::vector<uint8_t>& on_low = buf_.color_on_low;
  on_low.assign(nn, 0);
  std::vector<int>& degree = buf_.color_degree;
  degree.assign(nn, 0);
  std::vector<int>& k = buf_.color_k;
  k.assign(nn, 0);
  simplify_log_.clear();
  std::vector<uint32_t>& low = buf_.color_low;
  low.clear();
  std::vector<uint32_t>& stack = buf_.color_stack;
  stack.clear();
  std::vector<uint32_t>& remaining = buf_.color_remaining;
  remaining.clear();
  // How many registers of n's class a neighbour m takes:
  // cover_[cls_[n] * keys + key[m]].
  const uint32_t keys = static_cast<uint32_t>(t_.num_classes() + t_.num_regs());
  std::vector<uint32_t>& key = buf_.color_key;
  key.resize(nn);
  for (uint32_t n = 0; n < nn; ++n) key[n] = CoverKey(n);
  // Bit sets over the nodes, so that a walk of a row visits only the
  // neighbours it acts on (ForEachNeighborIn).
  const size_t bit_words = (static_cast<size_t>(g_.num_nodes()) + 63) / 64;
  std::vector<uint64_t>& alive = buf_.color_alive_bits;
  std::vector<uint64_t>& unremoved = buf_.color_unremoved_bits;
  std::vector<uint64_t>& colored = buf_.color_colored_bits;
  alive.assign(bit_words, 0);
  unremoved.assign(bit_words, 0);
  colored.assign(bit_words, 0);
  auto set_bit = [](std::vector<uint64_t>& bits, uint32_t n) { bits[n >> 6] |= uint64_t{1} << (n & 63); };
  auto clear_bit = [](std::vector<uint64_t>& bits, uint32_t n) { bits[n >> 6] &= ~(uint64_t{1} << (n & 63)); };
  auto test_bit = [](const std::vector<uint64_t>& bits, uint32_t n) { return (bits[n >> 6] >> (n & 63)) & 1; };
  // Removed from the simplify graph: never in it (merged, precolored, no
  // register left) or taken.
  auto removed = [&](uint32_t n) { return !test_bit(unremoved, n); };
  // A class is uniform where every live range of its bank takes exactly one
  // of its registers (x86-64 values next to each other): a node's effective
  // degree is then its count of live neighbours, a popcount per row word.
  const int nbanks = t_.num_banks();
  std::vector<uint8_t>& present = buf_.color_present;
  present.assign(static_cast<size_t>(nbanks) * keys, 0);
  for (uint32_t n = 0; n < nn; ++n) {
    if (alias_[n] != n) continue;
    set_bit(alive, n);
    present[t_.Class(cls_[n]).bank * keys + key[n]] = 1;
  }
  std::vector<uint8_t>& uniform = buf_.color_uniform;
  uniform.assign(t_.num_classes(), 1);
  for (int c = 0; c < t_.num_classes(); ++c) {
    const uint8_t* in_bank = &present[t_.Class(RegClass(c)).bank * keys];
    for (uint32_t x = 0; x < keys; ++x) {
      if (in_bank[x] && cover_[c * keys + x] != 1) uniform[c] = 0;
    }
  }
  for (uint32_t n = 0; n < nn; ++n) {
    if (alias_[n] != n || precolored_[n]) continue;
    k[n] = mask_[n].Count();
    if (k[n] == 0) {
      if (node_temp_[n]) return Error(absl::StrCat("a one-instruction live range has no register left: {", Members(n), "}"));
      spilled.push_back(n);  // nothing fits across its calls: spill at once
      continue;
    }
    int d = 0;
    if (uniform[cls_[n].index()]) {
      d = g_.LiveDegree(n);  // the unmerged neighbours: `alive`, counted by the graph's merges
    } else {
      const int* cover = &cover_[cls_[n].index() * keys];
      g_.ForEachNeighborIn(n, alive.data(), [&](uint32_t m) { d += cover[key[m]]; });
    }
    degree[n] = d;
    set_bit(unremoved, n);
    remaining.push_back(n);
  }
  for (uint32_t n : remaining) {
    if (degree[n] < k[n]) {
      low.push_back(n);
      on_low[n] = 1;
    }
  }
  size_t left = remaining.size();
  std::vector<uint32_t>& by_score = buf_.color_by_score;
  by_score.clear();
  std::vector<double>& score = buf_.color_score;
  score.clear();
  size_t next_by_score = 0;
  auto take = [&](uint32_t n) {
    clear_bit(unremoved, n);
    --left;
    const int* cover = &cover_[key[n]];
    g_.ForEachNeighborIn(n, unremoved.data(), [&](uint32_t m) {
      degree[m] -= cover[cls_[m].index() * keys];
      if (!on_low[m] && degree[m] < k[m]) {
        low.push_back(m);
        on_low[m] = 1;
      }
    });
  };
  while (left > 0) {
    if (!low.empty()) {
      uint32_t n = low.back();
      low.pop_back();
      if (removed(n)) continue;
      if (low.size() >= 2) g_.PrefetchRowHeader(low[low.size() - 2]);
      if (!low.empty()) g_.PrefetchRow(low.back());
      stack.push_back(n);
      if (o_.dump) simplify_log_.push_back({n, 'l'});
      take(n);
      continue;
    }
    // Blocked: the lowest score goes (optimistically, or spilled at once).
    // Scores do not change within a round: walk them in order once.
    if (by_score.empty()) {
      by_score = remaining;
      score.assign(nn, 0.0);
      for (uint32_t n : remaining) score[n] = Score(cost_[n], area_[n], node_temp_[n]);
      std::stable_sort(by_score.begin(), by_score.end(), [&](uint32_t a, uint32_t b) { return score[a] < score[b]; });
    }
    while (removed(by_score[next_by_score])) ++next_by_score;
    uint32_t best = by_score[next_by_score];
    if (o_.optimistic || node_temp_[best]) {
      stack.push_back(best);
    } else {
      spilled.push_back(best);
    }
    if (o_.dump) simplify_log_.push_back({best, o_.optimistic || node_temp_[best] ? 'o' : 's'});
    take(best);
  }
  // The fixed live ranges start colored; no two that interfere may overlap
  // (a walk of each one's fixed neighbours only: a constraint copy's row
  // meets every long-lived value, few of them fixed).
  for (uint32_t n = 0; n < nn; ++n) {
    if (precolored_[n] && alias_[n] == n) set_bit(colored, n);
  }
  for (uint32_t n = 0; n < nn; ++n) {
    if (!precolored_[n] || alias_[n] != n) continue;
    uint32_t clash = kNoNode;
    g_.ForEachNeighborIn(n, colored.data(), [&](uint32_t m) {
      if (t_.Units(color_[m]).Intersects(t_.Units(color_[n]))) clash = m;
      return clash == kNoNode;
    });
    if (clash != kNoNode) {
      return Error(absl::StrCat("two live ranges fixed to %", t_.RegName(color_[n]), " and %",
                                t_.RegName(color_[clash]), " interfere: {", Members(n), "} and {", Members(clash), "}"));
    }
  }
  if (o_.bias) {
    CopyPartners();
  } else {
    buf_.color_partner_start.assign(cls_.size() + 1, 0);
  }
  const std::vector<uint32_t>& partner_start = buf_.color_partner_start;
  const std::vector<std::pair<uint32_t, double>>& partners = buf_.color_partners;
  std::vector<double>& bias = buf_.color_bias;  // by register: its colored partners' weight
  bias.assign(t_.num_regs(), 0.0);
  std::vector<PReg>& touched = buf_.color_bias_touched;
  for (size_t i = stack.size(); i-- > 0;) {
    uint32_t n = stack[i];
    if (i >= 16) g_.PrefetchRowHeader(stack[i - 16]);
    if (i >= 8) g_.PrefetchRow(stack[i - 8]);
    // The colored neighbours' registers: a bit each, not their units (a
    // hundred neighbours hold a few dozen registers); a register is free when
    // none of them aliases it (shares a unit).
    RegSet taken;
    g_.ForEachNeighborIn(n, colored.data(), [&](uint32_t m) { taken.Insert(color_[m]); });
    PReg pick;
    // Biased coloring (C2's copy bias): the register of a colored partner
    // (a copy's other side, an edge's argument or parameter, a fixed
    // register a constraint copy reads or writes, a reload's slot's last
    // holder) where it is free, the heaviest by its copies' block
    // frequencies; then the allocation order.
    touched.clear();
    for (uint32_t k = partner_start[n]; k < partner_start[n + 1]; ++k) {
      uint32_t m = partners[k].first;
      while (alias_[m] != m) m = alias_[m];
      if (!test_bit(colored, m) || m == n) continue;
      const PReg r = color_[m];
      if (!mask_[n].Contains(r) || taken.Intersects(t_.Aliases(r))) continue;
      if (bias[r.index()] == 0) touched.push_back(r);
      bias[r.index()] += partners[k].second;
    }
    double best = 0;
    for (PReg r : touched) {
      if (bias[r.index()] > best) {
        best = bias[r.index()];
        pick = r;
      }
      bias[r.index()] = 0;
    }
    for (PReg r : t_.Class(cls_[n]).allocation_order) {
      if (pick.IsValid()) break;
      if (mask_[n].Contains(r) && !taken.Intersects(t_.Aliases(r))) {
        pick = r;
        break;
      }
    }
    if (!pick.IsValid()) {
      if (node_temp_[n]) return Error(absl::StrCat("a one-instruction live range found no register: {", Members(n), "}"));
      spilled.push_back(n);
      continue;
    }
    color_[n] = pick;
    set_bit(colored, n);
  }
  return absl::OkStatus();
}

// Step 7: each spilled live range lives in one stack slot.
absl::Status Chaitin::SpillEverywhere(const std::vector<uint32_t>& spilled) {
  std::vector<uint8_t>& is_spilled = buf_.spill_everywhere_is_spilled;
  is_spilled.assign(cls_.size(), 0);
  for (uint32_t n : spilled) is_spilled[n] = 1;
  stats_.spilled += static_cast<int>(spilled.size());
  const int nv = f_.num_values();
  // One slot per live range, as large as its largest member.
  std::vector<StackSlot>& slot_of = buf_.spill_everywhere_slot_of;
  slot_of.assign(cls_.size(), StackSlot());
  std::vector<int>& size_of = buf_.spill_everywhere_size_of;
  size_of.assign(cls_.size(), 0);
  std::vector<uint8_t>& member = buf_.spill_everywhere_member;
  member.assign(nv, 0);
  for (int v = 0; v < nv; ++v) {
    uint32_t n = NodeOf(Value(static_cast<uint32_t>(v)));
    if (n == kNoNode || !is_spilled[n]) continue;
    member[v] = 1;
    size_of[n] = std::max(size_of[n], TypeSize(f_.value_type(Value(static_cast<uint32_t>(v)))));
  }
  for (uint32_t n : spilled) slot_of[n] = f_.NewStackSlot(size_of[n]);
  std::vector<Value>& rename = buf_.spill_everywhere_rename;
  rename.assign(nv, Value());
  std::vector<uint8_t>& skip = buf_.spill_everywhere_skip;
  skip.clear();
  // (copy, its source), both spilled together
  std::vector<std::pair<Value, Value>>& same_as = buf_.spill_everywhere_same_as;
  same_as.clear();
  std::vector<Block>& keep_in = buf_.spill_everywhere_keep_in;  // split: the block where a value's uses keep reading it
  keep_in.assign(nv, Block());
  std::vector<Inst>& dead = buf_.spill_everywhere_dead;          // reloads of pieces spilled again
  dead.clear();
  std::vector<Value>& drop = buf_.spill_everywhere_drop;         // split parameters spilled again
  drop.clear();
  // Splitting keeps a spilled def in its register through its block where that
  // fits (Lrp) and no high-pressure instruction of its bank lies between the
  // def and its last read there: across one (a call that spares fewer of the
  // bank's registers than live across it) it would find no register again,
  // and spill again in the next round. `barriers` holds, for the block being
  // walked, the count of each bank's high-pressure instructions before each
  // index; `last_read` the index of each spilled value's last read in it.
  const int nbanks = t_.num_banks();
  std::vector<int>& barriers = buf_.spill_everywhere_barriers;
  std::vector<int>& last_read = buf_.spill_everywhere_last_read;
  std::vector<Block>& last_read_in = buf_.spill_everywhere_last_read_in;
  const bool barred = Splitting() && !hrp_.empty();
  if (barred) {
    last_read.assign(nv, -1);
    last_read_in.assign(nv, Block());
  }
  Block counted;  // the block `barriers` and `last_read` are of, counted when first asked
  auto count_block = [&](Block b) {
    counted = b;
    const std::vector<Inst>& insts = f_.block(b).insts;  // as it was: stores are added to `out`
    barriers.assign((insts.size() + 1) * nbanks, 0);
    for (size_t j = 0; j < insts.size(); ++j) {
      const uint8_t bits = HrpBits(insts[j]);
      for (int k = 0; k < nbanks; ++k) barriers[(j + 1) * nbanks + k] = barriers[j * nbanks + k] + (bits >> k & 1);
      for (const Operand& op : f_.operands(insts[j])) {
        if (!op.IsUse() || !member[op.value().index()]) continue;
        last_read[op.value().index()] = static_cast<int>(j);
        last_read_in[op.value().index()] = b;
      }
    }
  };
  // Keeps `v`, defined at index `at` of block b (-1: a parameter), through b?
  auto keep_through = [&](Value v, int at, Block b) {
    if (!Splitting() || !Lrp(b, v)) return false;
    if (!barred) return true;
    if (counted != b) count_block(b);
    if (last_read_in[v.index()] != b) return true;
    const int last = last_read[v.index()], bank = BankOf(v);
    return last <= at + 1 || barriers[last * nbanks + bank] == barriers[(at + 1) * nbanks + bank];
  };
  // Stores the spilled def `v` right after it (appended to `out`): of `i` at
  // index `at` of b, or, with no `i`, an entry parameter that arrives in a
  // register.
  auto store_def = [&](Value v, Inst i, int at, Block b, std::vector<Inst>& out) {
    Value s = NewValueLike(v);
    // A constant's register uses make it again instead of reloading it
    // (C2's rematerialization); the slot serves Any uses and edges.
    if (i.IsValid() && f_.inst(i).opcode == Opcode::kConst) remat_[s.index()] = i;
    Inst store = Make(Opcode::kSpill, s, v);
    if (skip.size() <= store.index()) skip.resize(store.index() + 1, 0);
    skip[store.index()] = 1;
    out.push_back(store);
    MarkStack(s, slot_of[NodeOf(v)]);
    rename[v.index()] = s;
    stored_[v.index()] = s;
    temp_[v.index()] = 1;  // in a register from its def to the store only
    if (keep_through(v, at, b)) {
      keep_in[v.index()] = b;  // ... or through its block, where that fits
      temp_[v.index()] = 0;
    }
    ++stats_.spills;
  };
  for (Block b : f_.layout()) {
    std::vector<Inst>& out = out_;
    out.clear();
    bool changed = false;
    std::vector<Inst>& insts = insts_;
    insts = f_.block(b).insts;
    for (const Operand& p : f_.block(b).params) {
      Value v = p.value();
      if (!member[v.index()]) continue;
      if (split_param_[v.index()]) {
        // A parameter made where split pieces met, spilled again: its readers
        // read the slot value (each its own reload), and it goes.
        rename[v.index()] = stored_[v.index()];
        nosplit_[stored_[v.index()].index()] = 1;
        drop.push_back(v);
        continue;
      }
      // A parameter the caller passes in a register of our choice is stored
      // like a def; the others (Any, Stack, and every other block's) are the slot.
      if (b != f_.entry() || p.constraint() != ConstraintKind::kReg) {
        MarkStack(v, slot_of[NodeOf(v)]);
      } else if (Value s = stored_[v.index()]; s.IsValid()) {
        rename[v.index()] = s;  // kept through its block before, spilled again: up to its store only
        nosplit_[s.index()] = 1;
        temp_[v.index()] = 1;
      } else {
        store_def(v, Inst(), -1, b, out);
        changed = true;
      }
    }
    for (size_t at = 0; at < insts.size(); ++at) {
      const Inst i = insts[at];
      out.push_back(i);
      // A copy of the operands: making instructions below may move the pool.
      absl::InlinedVector<Operand, 8> ops(f_.operands(i).begin(), f_.operands(i).end());
      // A copy within the spilled live range holds its source's value: its
      // uses read the source's slot value (a second store of the same bits
      // under another name would hide the first from the slot's readers).
      if (f_.inst(i).opcode == Opcode::kCopy && ops.size() == 2 && member[ops[0].value().index()] &&
          member[ops[1].value().index()] && NodeOf(ops[0].value()) == NodeOf(ops[1].value())) {
        same_as.push_back({ops[0].value(), ops[1].value()});
        temp_[ops[0].value().index()] = 1;
        continue;
      }
      for (const Operand& op : ops) {
        if (!op.IsDef() || !member[op.value().index()]) continue;
        Value v = op.value();
        if (stored_[v.index()].IsValid()) {
          // A split piece spilled again: its slot already holds it; every use
          // now reloads on its own, and a reload made for it goes.
          Value s = stored_[v.index()];
          rename[v.index()] = s;
          nosplit_[s.index()] = 1;
          temp_[v.index()] = 1;
          if (piece_def_[v.index()] == i) dead.push_back(i);
          continue;
        }
        if (IsTerminator(f_.inst(i).opcode)) return Error("a spilled value is defined by a terminator");
        store_def(v, i, static_cast<int>(at), b, out);
        changed = true;
      }
    }
    if (changed) f_.block(b).insts.assign(out.begin(), out.end());
  }
  for (size_t round = 0; round < same_as.size(); ++round) {  // chains of copies
    bool more = false;
    for (const auto& [v, src] : same_as) {
      // The source's slot value: its store, or itself (a spilled parameter).
      Value to = rename[src.index()].IsValid() ? rename[src.index()] : stack_[src.index()] ? src : Value();
      if (to.IsValid() && rename[v.index()] != to) {
        rename[v.index()] = to;
        more = true;
      }
    }
    if (!more) break;
  }
  for (Block b : f_.layout()) {
    std::vector<Inst>& insts = f_.block(b).insts;
    if (!dead.empty()) {
      insts.erase(std::remove_if(insts.begin(), insts.end(),
                                 [&](Inst i) { return std::find(dead.begin(), dead.end(), i) != dead.end(); }),
                  insts.end());
    }
    for (Inst i : insts) {
      if (i.index() < skip.size() && skip[i.index()]) continue;
      absl::Span<Operand> ops = f_.operands(i);
      for (Operand& op : ops) {
        if (!op.IsUse() || op.value().index() >= rename.size()) continue;
        Value v = op.value(), to = rename[v.index()];
        if (!to.IsValid() || keep_in[v.index()] == b) continue;
        // The store that made the slot value (an earlier round's) keeps its source.
        if (IsMoveLike(f_.inst(i).opcode) && ops[0].IsDef() && ops[0].value() == to) continue;
        op.set_value(to);
      }
    }
  }
  if (!drop.empty()) DropSplitParams(drop);
  // The live ranges split into their pieces; two-address pairs stay together.
  // (A spilled live range is a whole union-find set: flatten, then cut.)
  for (int v = 0; v < nv; ++v) parent_[v] = Find(static_cast<uint32_t>(v));
  for (int v = 0; v < nv; ++v) {
    if (member[v]) parent_[v] = static_cast<uint32_t>(v);
  }
  for (const auto& [d, s] : forced_) {
    if (!stack_[d.index()] && !stack_[s.index()]) Union(s, d);
  }
  return RewriteStackUses();
}

void Chaitin::DropSplitParams(const std::vector<Value>& drop) {
  const ControlFlowGraph& cfg = analyses_.cfg;
  const size_t nv = static_cast<size_t>(f_.num_values());
  std::vector<int> uses(nv, 0);
  std::vector<Block> param_block(nv);  // split parameters: their block
  for (Block b : f_.layout()) {
    for (const Operand& p : f_.block(b).params) {
      if (split_param_[p.value().index()]) param_block[p.value().index()] = b;
    }
    for (Inst i : f_.block(b).insts) {
      for (const Operand& op : f_.operands(i)) uses[op.value().index()] += op.IsUse();
    }
  }
  std::vector<Value> work(drop.begin(), drop.end());
  std::vector<uint8_t> dead(f_.num_insts(), 0);
  bool any_dead = false;
  auto unuse = [&](Value a) {
    if (--uses[a.index()] > 0 || !stored_[a.index()].IsValid()) return;
    if (split_param_[a.index()]) {
      work.push_back(a);
    } else if (piece_def_[a.index()].IsValid()) {
      dead[piece_def_[a.index()].index()] = 1;
      any_dead = true;
    }
  };
  while (!work.empty()) {
    const Value p = work.back();
    work.pop_back();
    const Block b = param_block[p.index()];
    if (!b.IsValid()) continue;
    param_block[p.index()] = Block();
    std::vector<Operand>& params = f_.block(b).params;
    size_t k = 0;
    while (params[k].value() != p) ++k;
    params.erase(params.begin() + k);
    for (const Edge& e : cfg.preds(b)) {
      const Value a = f_.BranchArgs(e.branch, e.target)[k].value();
      f_.SpliceBranchArgs(e.branch, e.target, k, 1, {});
      unuse(a);
    }
    ++stats_.split_dropped;
  }
  if (!any_dead) return;
  for (Block b : f_.layout()) {
    std::vector<Inst>& insts = f_.block(b).insts;
    insts.erase(std::remove_if(insts.begin(), insts.end(), [&](Inst i) { return dead[i.index()] != 0; }), insts.end());
  }
}

// A spilled def is stored as it is made, for the reads that may come from its
// slot: reloads, Any and Stack uses, edges. Where, once every round has
// rewritten its reads and the elider has taken out the reloads of values
// already in their registers, none reads the slot value (a constant made
// again at each use; a def whose reads all kept its register through its
// block; a two-address source whose only read is the instruction that
// overwrites it), the store goes.
void Chaitin::RemoveDeadStores() {
  stats_.dead_stores += EraseUnreadStores(
      f_, buf_.dead_stores_read, [&](Inst i) { return i.index() >= first_made_inst_; }, [](Block, Inst) {});
}

// Step 8: locations everywhere.
absl::Status Chaitin::Assign() {
  RegSet used;
  auto loc_of = [&](Value v) -> absl::StatusOr<Location> {
    if (stack_[v.index()]) return Location::Stack(slot_[v.index()]);
    uint32_t n = NodeOf(v);
    if (n == kNoNode || !color_[n].IsValid()) {
      return Error(absl::StrCat(f_.ValueName(v), " has no location"));
    }
    std::optional<PReg> r = t_.View(color_[n], *t_.ClassFor(f_.value_type(v)));
    if (!r.has_value()) return Error(absl::StrCat(f_.ValueName(v), " has no view of %", t_.RegName(color_[n])));
    used.Insert(*r);
    return Location::Reg(*r);
  };
  for (Block b : f_.layout()) {
    for (Operand& p : f_.block(b).params) {
      RA_ASSIGN_OR_RETURN(Location l, loc_of(p.value()));
      p.set_location(l);
    }
    for (Inst i : f_.block(b).insts) {
      for (Operand& op : f_.operands(i)) {
        RA_ASSIGN_OR_RETURN(Location l, loc_of(op.value()));
        op.set_location(l);
      }
    }
  }
  f_.set_saved_regs(FrameSaves(f_, t_, used));
  return absl::OkStatus();
}

void Chaitin::PrintRound(const std::vector<uint32_t>& spilled) {
  absl::StrAppend(&stats_.printed, "chaitin round ", round_, " of %", f_.name(), ": ", cls_.size(), " live ranges, ",
                  g_.num_edges(), " edges, ", stats_.aggressive, " aggressive and ", stats_.conservative,
                  " conservative merges so far\n");
  for (size_t n = 0; n < cls_.size(); ++n) {
    if (alias_[n] != n) continue;
    std::string members = Members(static_cast<uint32_t>(n));
    bool is_spilled = std::find(spilled.begin(), spilled.end(), n) != spilled.end();
    absl::StrAppend(&stats_.printed, "  lrg", n, " {", members, "} ", t_.Class(cls_[n]).name, " mask ",
                    mask_[n].Count(), " degree ", g_.Degree(static_cast<uint32_t>(n)), " cost ", cost_[n],
                    " area ", area_[n], " score ", Score(cost_[n], area_[n], node_temp_[n]), " -> ",
                    is_spilled ? std::string("spilled")
                               : color_[n].IsValid() ? absl::StrCat("%", t_.RegName(color_[n])) : std::string("-"),
                    "\n");
  }
  // The simplify stack, bottom first (select colors it from the top): Briggs's
  // optimistic pushes are where spills may come from.
  std::string order;
  for (const auto& [n, how] : simplify_log_) {
    absl::StrAppend(&order, " lrg", n, how == 'o' ? " (blocked, optimistic)" : how == 's' ? " (blocked, spilled)" : "");
  }
  absl::StrAppend(&stats_.printed, "  simplify:", order.empty() ? std::string(" -") : order, "\n");
}

absl::Status Chaitin::Begin() {
  // How many registers of class A one register of class B (or one register r)
  // can cover: the effective degree's weights.
  const int nc = t_.num_classes(), nr = t_.num_regs(), keys = nc + nr;
  cover_.assign(nc * keys, 0);
  for (int a = 0; a < nc; ++a) {
    int* row = &cover_[a * keys];
    for (int r = 0; r < nr; ++r) {
      int c = 0;
      for (PReg x : t_.Class(RegClass(a)).members) c += t_.Units(x).Intersects(t_.Units(PReg(r)));
      row[nc + r] = c;
    }
    for (int b = 0; b < nc; ++b) {
      int worst = 0;
      for (PReg y : t_.Class(RegClass(b)).members) worst = std::max(worst, row[nc + y.index()]);
      row[b] = worst;
    }
  }
  first_made_inst_ = static_cast<uint32_t>(f_.num_insts());
  RA_RETURN_IF_ERROR(Prepare());
  // Each constant branch argument may get a node of its own in the first graph.
  spare_nodes_ = 0;
  if (o_.aggressive) {
    ConstDefs(f_, const_def_, /*with_clobbers=*/true);
    for (Block b : f_.layout()) {
      if (f_.block(b).insts.empty()) continue;
      const Inst i = f_.block(b).insts.back();
      absl::Span<const Operand> ops = f_.operands(i);
      for (size_t k = f_.NumNonArgOperands(i); k < ops.size(); ++k) {
        spare_nodes_ += const_def_[ops[k].value().index()].IsValid();
      }
    }
  }
  round_ = 1;
  RA_RETURN_IF_ERROR(BuildGraph());
  if (o_.observe_graph) o_.observe_graph(f_, g_, node_of_);
  if (o_.aggressive) {
    AggressiveCoalesce();
    // The constants made again join this graph (C2 builds its physical
    // graph anew after insert_copies; the first graph is the largest of all
    // rounds, so here it is updated instead), then coalesce.
    if (RematerializeConstantArguments() > 0) AggressiveCoalesce();
    spare_nodes_ = 0;
  }
  ReleaseLiveSetsIfLarge();
  return absl::OkStatus();
}

absl::Status Chaitin::Finish() {
  std::vector<uint32_t>& spilled = buf_.finish_spilled;
  spilled.clear();
  for (;; ++round_) {
    if (round_ > o_.max_rounds) return Error("spilling did not converge");
    if (round_ > 1) {
      RA_RETURN_IF_ERROR(BuildGraph());
      if (o_.observe_graph) o_.observe_graph(f_, g_, node_of_);
      ReleaseLiveSetsIfLarge();
    }
    if (o_.conservative) ConservativeCoalesce();
    spilled.clear();
    RA_RETURN_IF_ERROR(Color(spilled));
    if (o_.dump) PrintRound(spilled);
    stats_.rounds = round_;
    if (spilled.empty()) break;
    // After a large function's round its graph goes before the function
    // grows (base/warm_buffers.h): the next round's is much smaller (the
    // spilled values have no node there), and the first round's rows, kept
    // for reuse, were 600 bytes per instruction at a million instructions.
    if (f_.num_insts() > kWarmBufferInsts) g_ = InterferenceGraph();
    RA_RETURN_IF_ERROR(SpillEverywhere(spilled));
  }
  RA_RETURN_IF_ERROR(Assign());
  // C2's post_allocate_copy_removal, within blocks (ssa/elide_moves.h); then
  // the stores whose slot values nothing reads any more.
  stats_.elided = buf_.elider.Run(f_, t_);
  RemoveDeadStores();
  return absl::OkStatus();
}

}  // namespace chaitin_internal

ChaitinAllocator::ChaitinAllocator(const ChaitinOptions& options)
    : options_(options), buffers_(std::make_unique<chaitin_internal::Buffers>()) {}
ChaitinAllocator::~ChaitinAllocator() = default;

absl::StatusOr<ChaitinStats> ChaitinAllocator::Coalesce(Function& func, const Target& target) {
  active_.reset();
  if (func.IsAllocated()) {
    return absl::FailedPreconditionError(absl::StrCat("function %", func.name(), ": chaitin needs SSA form"));
  }
  // The verifier's analyses are the first round's (chaitin adds no blocks).
  RA_RETURN_IF_ERROR(verifier_.Run(func, target, buffers_->cfg));
  RA_RETURN_IF_ERROR(CheckRegisterDemand(func, target));
  stats_ = ChaitinStats();
  active_ = std::make_unique<chaitin_internal::Chaitin>(func, target, options_, sets_, ifg_, stats_, *buffers_);
  absl::Status s = active_->Begin();
  if (!s.ok()) {
    active_.reset();
    return s;
  }
  function_ = &func;
  return stats_;
}

absl::StatusOr<ChaitinStats> ChaitinAllocator::Color(Function& func, const Target& target) {
  if (active_ == nullptr || function_ != &func) {
    return absl::FailedPreconditionError(
        absl::StrCat("function %", func.name(), ": chaitin's coloring needs its coalescing first (Coalesce)"));
  }
  absl::Status s = active_->Finish();
  active_.reset();
  function_ = nullptr;
  // After a large function the graph (its rows and dense blocks, kept from
  // build to build) and the live sets go too, not only the buffers.
  ReleaseAfterLargeFunction(func.num_insts(), buffers_);
  ReleaseAfterLargeFunction(func.num_insts(), ifg_);
  ReleaseAfterLargeFunction(func.num_insts(), sets_);
  if (!s.ok()) return s;
  if (options_.lower_params) {
    RA_ASSIGN_OR_RETURN(stats_.lower, lowerer_.Run(func, target));
    ReleaseAfterLargeFunction(func.num_insts(), lowerer_);
  }
  return stats_;
}

absl::StatusOr<ChaitinStats> ChaitinAllocator::Run(Function& func, const Target& target) {
  RA_RETURN_IF_ERROR(Coalesce(func, target).status());
  return Color(func, target);
}

}  // namespace regalloc
