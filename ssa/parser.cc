#include "ssa/parser.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include <algorithm>
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_format.h"
#include "base/bit_cast.h"
#include "base/status_macros.h"

namespace regalloc {
namespace {

enum class Tok : uint8_t {
  kIdent,   // function, block3, v12, add, cmp.lt, i64, reuse0, ss2, nan, -1, 0x1f, 1.5e3
  kSigil,   // %rax, %callee (text after '%')
  kPunct,   // ( ) { } , : = @ [ ] ->
  kEnd,
};

struct Token {
  Tok kind = Tok::kEnd;
  absl::string_view text;
  int line = 0;
  int col = 0;
};

bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; }

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  absl::StatusOr<Token> Next() {
    SkipSpaceAndComments();
    Token t;
    t.line = line_;
    t.col = col_;
    if (pos_ >= text_.size()) return t;
    char c = text_[pos_];
    size_t start = pos_;
    if (c == '%') {
      Advance();
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) Advance();
      if (pos_ == start + 1) return Error(t, "expected a name after '%'");
      t.kind = Tok::kSigil;
      t.text = text_.substr(start + 1, pos_ - start - 1);
      return t;
    }
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      Advance();
      Advance();
      t.kind = Tok::kPunct;
      t.text = text_.substr(start, 2);
      return t;
    }
    if (IsIdentChar(c) || c == '-' || c == '+') {
      Advance();
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        // The sign of an exponent: 1.5e-3, and in hex floats 0x1p-1074.
        absl::string_view so_far = text_.substr(start, pos_ - start);
        absl::string_view digits = absl::StripPrefix(absl::StripPrefix(so_far, "-"), "+");
        char prev = text_[pos_ - 1];
        bool hex = absl::StartsWith(digits, "0x") || absl::StartsWith(digits, "0X");
        bool exponent_sign = (d == '-' || d == '+') && !digits.empty() && absl::ascii_isdigit(digits[0]) &&
                             (hex ? (prev == 'p' || prev == 'P') : (prev == 'e' || prev == 'E'));
        if (!IsIdentChar(d) && !exponent_sign) break;
        Advance();
      }
      t.kind = Tok::kIdent;
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    if (c != '\0' && std::strchr("(){},:=@[]", c) != nullptr) {
      Advance();
      t.kind = Tok::kPunct;
      t.text = text_.substr(start, 1);
      return t;
    }
    return Error(t, absl::StrCat("unexpected character ", DescribeCharAt(pos_)));
  }

  static absl::Status Error(const Token& at, absl::string_view msg) {
    return absl::InvalidArgumentError(absl::StrCat(at.line, ":", at.col, ": ", msg));
  }

 private:
  // Lines end in \n, \r\n or \r alike.
  void Advance() {
    char c = text_[pos_];
    bool crlf = c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n';
    if ((c == '\n' || c == '\r') && !crlf) {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  // The character at `at` for an error: printable ASCII as itself, a whole UTF-8
  // sequence as itself with its code point, any other byte in hex.
  std::string DescribeCharAt(size_t at) const {
    unsigned char c = static_cast<unsigned char>(text_[at]);
    if (c >= 0x20 && c < 0x7f) return absl::StrFormat("'%c'", c);
    int len = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (c >= 0x80 && len > 0 && at + len <= text_.size()) {
      uint32_t cp = c & (0x7f >> len);
      bool valid = true;
      for (int k = 1; k < len; ++k) {
        unsigned char b = static_cast<unsigned char>(text_[at + k]);
        valid &= (b & 0xc0) == 0x80;
        cp = (cp << 6) | (b & 0x3f);
      }
      if (valid) return absl::StrFormat("'%s' (U+%04X)", text_.substr(at, len), cp);
    }
    return absl::StrFormat("byte 0x%02x", c);
  }
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '\r') Advance();
      } else if (absl::ascii_isspace(c)) {
        Advance();
      } else {
        break;
      }
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kSigil: return absl::StrCat("'%", t.text, "'");
    default: return absl::StrCat("'", t.text, "'");
  }
}

// Parses "<prefix><digits>" (v12, block3, ss0, reuse1) into the number.
std::optional<uint32_t> NumberedName(absl::string_view text, absl::string_view prefix) {
  if (!absl::StartsWith(text, prefix) || text.size() == prefix.size()) return std::nullopt;
  absl::string_view digits = text.substr(prefix.size());
  for (char c : digits) {
    if (!absl::ascii_isdigit(c)) return std::nullopt;
  }
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  uint32_t n;
  if (!absl::SimpleAtoi(digits, &n) || n > Function::kMaxName) return std::nullopt;
  return n;
}

struct SourcePos {
  int line = 0;
  int col = 0;
};

// Source positions by dense id (values, blocks): flat, since ids are dense.
class PosTable {
 public:
  bool contains(uint32_t id) const { return id < pos_.size() && pos_[id].line != 0; }
  SourcePos& operator[](uint32_t id) {
    if (id >= pos_.size()) pos_.resize(std::max<size_t>(id + 1, pos_.size() * 2));
    return pos_[id];
  }
  void clear() { pos_.clear(); }
  // Calls f(id, pos) for every recorded id, in id order.
  template <typename F>
  void ForEach(F f) const {
    for (size_t i = 0; i < pos_.size(); ++i) {
      if (pos_[i].line != 0) f(static_cast<uint32_t>(i), pos_[i]);
    }
  }

 private:
  std::vector<SourcePos> pos_;
};

// The numbers a text writes (`v12`, `block3`, `ss2`) to dense ids, in order of
// first appearance, so that a function costs what it contains, not what its
// largest number says. Finish() gives the final ids.
class Numbering {
 public:
  uint32_t Id(uint32_t written) {
    auto [it, inserted] = ids_.try_emplace(written, static_cast<uint32_t>(written_.size()));
    if (inserted) written_.push_back(written);
    return it->second;
  }
  std::optional<uint32_t> Find(uint32_t written) const {
    auto it = ids_.find(written);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  uint32_t Written(uint32_t id) const { return written_[id]; }
  uint32_t size() const { return static_cast<uint32_t>(written_.size()); }
  void clear() {
    ids_.clear();
    written_.clear();
  }
  // The final id of each id, and how many final ids there are. Where the written
  // numbers are dense enough (the largest below 4 × count + 1024) they are the
  // ids, holes and all, as the text says; else the ids are their ranks, and
  // `names` gets the written numbers by final id.
  std::vector<uint32_t> Finalize(int* count, std::vector<uint32_t>* names) const {
    uint32_t largest = 0;
    for (uint32_t w : written_) largest = std::max(largest, w);
    std::vector<uint32_t> map(written_.size());
    names->clear();
    if (written_.empty() || largest < 4 * written_.size() + 1024) {
      for (size_t id = 0; id < written_.size(); ++id) map[id] = written_[id];
      *count = written_.empty() ? 0 : static_cast<int>(largest) + 1;
      return map;
    }
    std::vector<uint32_t> order(written_.size());
    for (size_t id = 0; id < order.size(); ++id) order[id] = static_cast<uint32_t>(id);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return written_[a] < written_[b]; });
    for (size_t rank = 0; rank < order.size(); ++rank) {
      map[order[rank]] = static_cast<uint32_t>(rank);
      names->push_back(written_[order[rank]]);
    }
    *count = static_cast<int>(order.size());
    return map;
  }

 private:
  absl::flat_hash_map<uint32_t, uint32_t> ids_;
  std::vector<uint32_t> written_;
};

class Parser {
 public:
  Parser(absl::string_view text, const Target& target) : lexer_(text), target_(target) {}

  absl::Status Init() { return Advance(); }
  bool AtEnd() const { return tok_.kind == Tok::kEnd; }

  absl::StatusOr<Function> ParseFunctionDef();

 private:
  absl::Status Advance() {
    prev_line_ = tok_.line;
    RA_ASSIGN_OR_RETURN(tok_, lexer_.Next());
    return absl::OkStatus();
  }
  absl::Status ErrorHere(absl::string_view msg) const { return Lexer::Error(tok_, msg); }
  absl::Status Expected(absl::string_view what) const {
    return ErrorHere(absl::StrCat("expected ", what, ", found ", Describe(tok_)));
  }
  static absl::Status ErrorAt(SourcePos p, absl::string_view msg) {
    return absl::InvalidArgumentError(absl::StrCat(p.line, ":", p.col, ": ", msg));
  }
  bool IsPunct(absl::string_view p) const { return tok_.kind == Tok::kPunct && tok_.text == p; }
  bool IsIdent(absl::string_view s) const { return tok_.kind == Tok::kIdent && tok_.text == s; }
  absl::Status ExpectPunct(absl::string_view p) {
    if (!IsPunct(p)) return Expected(absl::StrCat("'", p, "'"));
    return Advance();
  }
  // True when the current token starts a new line relative to `line`.
  bool OnLaterLine(int line) const { return tok_.kind == Tok::kEnd || tok_.line > line; }
  SourcePos Here() const { return SourcePos{tok_.line, tok_.col}; }

  absl::StatusOr<Type> ParseTypeName();
  absl::StatusOr<std::vector<Type>> ParseTypeList(absl::string_view close);
  absl::StatusOr<Operand> ParseOperand(OperandKind kind);
  absl::StatusOr<Location> ParseLocation();
  absl::StatusOr<Block> ParseBlockRef();
  absl::Status ParseBlockHeader();
  absl::Status ParseInst();
  absl::Status ParseOperandList(int line, std::vector<Operand>& ops, bool allow_empty);
  absl::Status ParseBranchTarget(int line, std::vector<BranchTarget>& targets, std::vector<Operand>& ops);
  absl::Status ParseClobbers(int line, InstData& d);
  // "%a, %b, ..." up to the end of `line`; `what` names the list in errors.
  absl::StatusOr<RegSet> ParseRegisterList(int line, absl::string_view what);
  absl::Status Finish();

  Lexer lexer_;
  const Target& target_;
  Token tok_;
  int prev_line_ = 0;

  Function func_;
  Block current_;
  Numbering values_;
  Numbering blocks_;
  Numbering slots_;
  // Where each value (block) was defined and first used, by id; line 0: nowhere.
  PosTable def_pos_;
  PosTable use_pos_;
  PosTable block_ref_pos_;
  PosTable block_def_pos_;
  // Values whose type was written (parameters, const, load, cmp, call results).
  std::vector<uint8_t> typed_;
  // (value, source, position): `value` takes the type of `source` (arithmetic,
  // copies, and move-like pairs that move one value into another).
  struct Inference {
    Value value;
    Value source;
    SourcePos pos;
  };
  std::vector<Inference> inferred_;
  void MarkTyped(Value v) {
    if (v.index() >= typed_.size()) typed_.resize(v.index() + 1, 0);
    typed_[v.index()] = 1;
  }
};

absl::StatusOr<Type> Parser::ParseTypeName() {
  if (tok_.kind != Tok::kIdent) return Expected("a type (i32, i64, f32, f64, v128)");
  std::optional<Type> t = ParseType(tok_.text);
  if (!t.has_value()) return ErrorHere(absl::StrCat("unknown type '", tok_.text, "' (types: i32, i64, f32, f64, v128)"));
  RA_RETURN_IF_ERROR(Advance());
  return *t;
}

absl::StatusOr<std::vector<Type>> Parser::ParseTypeList(absl::string_view close) {
  std::vector<Type> types;
  if (!close.empty() && IsPunct(close)) return types;
  while (true) {
    RA_ASSIGN_OR_RETURN(Type t, ParseTypeName());
    types.push_back(t);
    if (!IsPunct(",")) break;
    RA_RETURN_IF_ERROR(Advance());
  }
  return types;
}

absl::StatusOr<Location> Parser::ParseLocation() {
  if (tok_.kind == Tok::kSigil) {
    std::optional<PReg> r = target_.FindReg(tok_.text);
    if (!r.has_value()) {
      return ErrorHere(absl::StrCat("unknown register '%", tok_.text, "' on target ", target_.name()));
    }
    RA_RETURN_IF_ERROR(Advance());
    return Location::Reg(*r);
  }
  if (tok_.kind == Tok::kIdent) {
    if (std::optional<uint32_t> n = NumberedName(tok_.text, "ss")) {
      std::optional<uint32_t> id = slots_.Find(*n);
      if (!id.has_value()) {
        return ErrorHere(absl::StrCat("stack slot ss", *n, " is not declared (declare it: ss", *n,
                                      " = stack_slot SIZE)"));
      }
      RA_RETURN_IF_ERROR(Advance());
      return Location::Stack(StackSlot(*id));
    }
  }
  return Expected("a location (%register or ssN)");
}

absl::StatusOr<Operand> Parser::ParseOperand(OperandKind kind) {
  std::optional<uint32_t> n;
  if (tok_.kind == Tok::kIdent) n = NumberedName(tok_.text, "v");
  if (!n.has_value()) return Expected("a value (vN)");
  Value v(values_.Id(*n));
  Operand op = kind == OperandKind::kUse ? Operand::Use(v) : Operand::Def(v);
  if (kind == OperandKind::kUse && !use_pos_.contains(v.index())) use_pos_[v.index()] = Here();
  RA_RETURN_IF_ERROR(Advance());
  bool has_constraint = false;
  while (IsPunct("@")) {
    RA_RETURN_IF_ERROR(Advance());
    SourcePos at = Here();
    if (tok_.kind == Tok::kSigil) {
      std::optional<PReg> r = target_.FindReg(tok_.text);
      if (!r.has_value()) {
        return ErrorHere(absl::StrCat("unknown register '%", tok_.text, "' on target ", target_.name()));
      }
      if (has_constraint) return ErrorAt(at, "operand has two constraints");
      op = op.WithFixed(*r);
      has_constraint = true;
    } else if (IsIdent("early") || IsIdent("late")) {
      op = op.WithPosition(IsIdent("early") ? Position::kEarly : Position::kLate);
    } else if (IsIdent("any") || IsIdent("stack") || IsIdent("reg")) {
      if (has_constraint) return ErrorAt(at, "operand has two constraints");
      op = op.WithConstraint(IsIdent("any")     ? ConstraintKind::kAny
                             : IsIdent("stack") ? ConstraintKind::kStack
                                                : ConstraintKind::kReg);
      has_constraint = true;
    } else if (std::optional<uint32_t> k =
                   tok_.kind == Tok::kIdent ? NumberedName(tok_.text, "reuse") : std::nullopt) {
      if (kind != OperandKind::kDef) return ErrorHere("a reuse constraint is only valid on a def");
      if (has_constraint) return ErrorAt(at, "operand has two constraints");
      Position p = op.position();
      op = Operand::ReuseDef(v, static_cast<int>(*k)).WithPosition(p);
      has_constraint = true;
    } else {
      return Expected("a constraint (any, stack, reg, %register, reuseN, early, late)");
    }
    RA_RETURN_IF_ERROR(Advance());
  }
  if (IsPunct("[")) {
    RA_RETURN_IF_ERROR(Advance());
    RA_ASSIGN_OR_RETURN(Location loc, ParseLocation());
    op.set_location(loc);
    RA_RETURN_IF_ERROR(ExpectPunct("]"));
  }
  return op;
}

absl::StatusOr<Block> Parser::ParseBlockRef() {
  std::optional<uint32_t> n;
  if (tok_.kind == Tok::kIdent) n = NumberedName(tok_.text, "block");
  if (!n.has_value()) return Expected("a block (blockN)");
  Block b(blocks_.Id(*n));
  if (!block_ref_pos_.contains(b.index())) block_ref_pos_[b.index()] = Here();
  RA_RETURN_IF_ERROR(Advance());
  return b;
}

absl::Status Parser::ParseOperandList(int line, std::vector<Operand>& ops, bool allow_empty) {
  if (allow_empty && (OnLaterLine(line) || IsPunct(")") || IsIdent("clobbers") || IsPunct("}"))) {
    return absl::OkStatus();
  }
  while (true) {
    if (OnLaterLine(line)) return Expected("an operand before the end of the line");
    RA_ASSIGN_OR_RETURN(Operand op, ParseOperand(OperandKind::kUse));
    ops.push_back(op);
    if (!IsPunct(",")) return absl::OkStatus();
    RA_RETURN_IF_ERROR(Advance());
  }
}

absl::Status Parser::ParseBranchTarget(int line, std::vector<BranchTarget>& targets, std::vector<Operand>& ops) {
  if (OnLaterLine(line)) return Expected("a branch target before the end of the line");
  RA_ASSIGN_OR_RETURN(Block b, ParseBlockRef());
  BranchTarget& bt = targets.emplace_back();
  bt.block = b;
  bt.first_arg = static_cast<uint16_t>(ops.size());
  if (IsPunct("(") && !OnLaterLine(line)) {
    RA_RETURN_IF_ERROR(Advance());
    RA_RETURN_IF_ERROR(ParseOperandList(line, ops, /*allow_empty=*/true));
    RA_RETURN_IF_ERROR(ExpectPunct(")"));
  }
  bt.num_args = static_cast<uint16_t>(ops.size() - bt.first_arg);
  return absl::OkStatus();
}

absl::StatusOr<RegSet> Parser::ParseRegisterList(int line, absl::string_view what) {
  RegSet set;
  while (true) {
    if (tok_.kind != Tok::kSigil || OnLaterLine(line)) return Expected(absl::StrCat("a register (%name) in the ", what));
    std::optional<PReg> r = target_.FindReg(tok_.text);
    if (!r.has_value()) {
      return ErrorHere(absl::StrCat("unknown register '%", tok_.text, "' on target ", target_.name()));
    }
    set.Insert(*r);
    RA_RETURN_IF_ERROR(Advance());
    if (!IsPunct(",")) return set;
    RA_RETURN_IF_ERROR(Advance());
  }
}

absl::Status Parser::ParseClobbers(int line, InstData& d) {
  if (!IsIdent("clobbers") || OnLaterLine(line)) return absl::OkStatus();
  RA_RETURN_IF_ERROR(Advance());
  RA_ASSIGN_OR_RETURN(RegSet set, ParseRegisterList(line, "clobber list"));
  d.clobbers = func_.InternClobbers(set);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseImmediate(Type type, absl::string_view text) {
  std::string s(text);
  if (IsFloat(type)) {
    errno = 0;
    char* end = nullptr;
    if (type == Type::kF32) {
      float f = std::strtof(s.c_str(), &end);
      if (end != s.c_str() + s.size() || s.empty()) return absl::InvalidArgumentError("");
      return static_cast<int64_t>(BitCast<uint32_t>(f));
    }
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.empty()) return absl::InvalidArgumentError("");
    return BitCast<int64_t>(d);
  }
  int64_t v;
  if (absl::StartsWith(s, "0x") || absl::StartsWith(s, "-0x")) {
    bool neg = s[0] == '-';
    uint64_t u;
    if (!absl::SimpleHexAtoi(absl::string_view(s).substr(neg ? 3 : 2), &u)) {
      return absl::InvalidArgumentError("");
    }
    v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  } else if (!absl::SimpleAtoi(s, &v)) {
    return absl::InvalidArgumentError("");
  }
  // Narrow integers take signed or unsigned spellings and are kept sign-extended.
  if (type == Type::kI32 && (v < INT32_MIN || v > UINT32_MAX)) return absl::OutOfRangeError("");
  if (type == Type::kI32) v = static_cast<int32_t>(static_cast<uint32_t>(v));
  if (type == Type::kI8 && (v < INT8_MIN || v > UINT8_MAX)) return absl::OutOfRangeError("");
  if (type == Type::kI8) v = static_cast<int8_t>(static_cast<uint8_t>(v));
  return v;
}

absl::Status Parser::ParseBlockHeader() {
  SourcePos at = Here();
  std::optional<uint32_t> n = NumberedName(tok_.text, "block");
  if (!n.has_value()) return Expected("a block header (blockN:)");
  Block b(blocks_.Id(*n));
  if (block_def_pos_.contains(b.index())) {
    SourcePos first = block_def_pos_[b.index()];
    return ErrorAt(at, absl::StrCat("block", *n, " is defined twice (first at ", first.line, ":", first.col, ")"));
  }
  block_def_pos_[b.index()] = at;
  func_.EnsureBlock(b);
  func_.AppendToLayout(b);
  current_ = b;
  RA_RETURN_IF_ERROR(Advance());
  if (IsPunct("(")) {
    RA_RETURN_IF_ERROR(Advance());
    while (!IsPunct(")")) {
      SourcePos pat = Here();
      RA_ASSIGN_OR_RETURN(Operand op, ParseOperand(OperandKind::kDef));
      RA_RETURN_IF_ERROR(ExpectPunct(":"));
      RA_ASSIGN_OR_RETURN(Type t, ParseTypeName());
      uint32_t v = op.value().index();
      if (def_pos_.contains(v)) {
        SourcePos first = def_pos_[v];
        return ErrorAt(pat, absl::StrCat("value v", values_.Written(v), " is defined twice (first at ", first.line, ":",
                                         first.col, ")"));
      }
      def_pos_[v] = pat;
      func_.EnsureValue(op.value(), t);
      MarkTyped(op.value());
      func_.block(b).params.push_back(op);
      if (IsPunct(",")) {
        RA_RETURN_IF_ERROR(Advance());
        if (IsPunct(")")) return Expected("a block parameter after ','");
      } else if (!IsPunct(")")) {
        return Expected("',' or ')' in the block parameter list");
      }
    }
    RA_RETURN_IF_ERROR(Advance());
  }
  return ExpectPunct(":");
}

absl::Status Parser::ParseInst() {
  SourcePos start = Here();
  int line = tok_.line;
  std::vector<Operand> ops;
  std::vector<SourcePos> def_positions;
  // Defs: "vA, vB = ..."
  if (tok_.kind == Tok::kIdent && NumberedName(tok_.text, "v").has_value()) {
    while (true) {
      def_positions.push_back(Here());
      RA_ASSIGN_OR_RETURN(Operand op, ParseOperand(OperandKind::kDef));
      ops.push_back(op);
      if (!IsPunct(",")) break;
      RA_RETURN_IF_ERROR(Advance());
    }
    RA_RETURN_IF_ERROR(ExpectPunct("="));
  }
  size_t num_defs = ops.size();
  if (tok_.kind != Tok::kIdent || OnLaterLine(line)) return Expected("an opcode");
  SourcePos op_pos = Here();
  absl::string_view word = tok_.text;
  absl::string_view base = word.substr(0, word.find('.'));
  absl::string_view suffix = word.size() > base.size() ? word.substr(base.size() + 1) : "";
  std::optional<Opcode> opcode;
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (OpcodeName(static_cast<Opcode>(i)) == base) opcode = static_cast<Opcode>(i);
  }
  if (!opcode.has_value()) {
    if (word.size() > 1 && word[0] == 'v' && absl::ascii_isdigit(word[1])) {
      return ErrorHere(absl::StrCat("'", word, "' is not a value name (vN, no leading zeros) nor an opcode"));
    }
    return ErrorHere(absl::StrCat("unknown opcode '", word, "'"));
  }
  InstData d;
  d.opcode = *opcode;
  std::vector<BranchTarget> targets;
  RA_RETURN_IF_ERROR(Advance());

  auto need_suffix = [&](bool wanted) -> absl::Status {
    if (wanted && suffix.empty()) return ErrorAt(op_pos, absl::StrCat("'", base, "' needs a suffix: ", base, ".TYPE"));
    if (!wanted && !suffix.empty()) return ErrorAt(op_pos, absl::StrCat("'", base, "' takes no suffix, found '", word, "'"));
    return absl::OkStatus();
  };
  auto need_defs = [&](size_t n) -> absl::Status {
    if (num_defs != n) {
      return ErrorAt(start, absl::StrCat("'", base, "' defines ", n, " value", n == 1 ? "" : "s", ", found ", num_defs));
    }
    return absl::OkStatus();
  };
  auto need_uses = [&](size_t n) -> absl::Status {
    if (ops.size() - num_defs != n) {
      return ErrorAt(op_pos, absl::StrCat("'", base, "' takes ", n, " operand", n == 1 ? "" : "s", ", found ",
                                          ops.size() - num_defs));
    }
    return absl::OkStatus();
  };
  // A type named in the opcode's suffix ("const.i64", each part of "call.i32.f64").
  auto suffix_type = [&](absl::string_view part) -> absl::StatusOr<Type> {
    std::optional<Type> t = ParseType(part);
    if (!t.has_value()) return ErrorAt(op_pos, absl::StrCat("unknown type '", part, "' in '", word, "'"));
    return *t;
  };
  auto parse_offset = [&]() -> absl::Status {
    RA_RETURN_IF_ERROR(ExpectPunct(","));
    if (tok_.kind != Tok::kIdent || OnLaterLine(line) || !absl::SimpleAtoi(tok_.text, &d.imm)) {
      return Expected("an integer offset");
    }
    return Advance();
  };
  switch (d.opcode) {
    case Opcode::kConst: {
      RA_RETURN_IF_ERROR(need_suffix(true));
      RA_ASSIGN_OR_RETURN(d.type, suffix_type(suffix));
      RA_RETURN_IF_ERROR(need_defs(1));
      if (tok_.kind != Tok::kIdent || OnLaterLine(line)) return Expected("an immediate");
      absl::StatusOr<int64_t> imm = ParseImmediate(d.type, tok_.text);
      if (!imm.ok()) {
        return ErrorHere(absl::StrCat("'", tok_.text, "' is not a valid ", TypeName(d.type), " immediate"));
      }
      d.imm = *imm;
      RA_RETURN_IF_ERROR(Advance());
      break;
    }
    case Opcode::kCmp: {
      RA_RETURN_IF_ERROR(need_suffix(true));
      std::optional<CondCode> cc;
      for (int i = 0; i < kNumCondCodes; ++i) {
        if (CondCodeName(static_cast<CondCode>(i)) == suffix) cc = static_cast<CondCode>(i);
      }
      if (!cc.has_value()) {
        return ErrorAt(op_pos, absl::StrCat("unknown condition '", suffix,
                                            "' (eq, ne, lt, le, gt, ge, ult, ule, ugt, uge)"));
      }
      d.cc = *cc;
      RA_RETURN_IF_ERROR(need_defs(1));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, false));
      RA_RETURN_IF_ERROR(need_uses(2));
      d.type = Type::kI32;
      break;
    }
    case Opcode::kLoad: {
      RA_RETURN_IF_ERROR(need_suffix(true));
      RA_ASSIGN_OR_RETURN(d.type, suffix_type(suffix));
      RA_RETURN_IF_ERROR(need_defs(1));
      if (OnLaterLine(line)) return Expected("an address operand");
      RA_ASSIGN_OR_RETURN(Operand addr, ParseOperand(OperandKind::kUse));
      ops.push_back(addr);
      RA_RETURN_IF_ERROR(parse_offset());
      break;
    }
    case Opcode::kStore: {
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(0));
      if (OnLaterLine(line)) return Expected("a value operand");
      RA_ASSIGN_OR_RETURN(Operand val, ParseOperand(OperandKind::kUse));
      ops.push_back(val);
      RA_RETURN_IF_ERROR(ExpectPunct(","));
      RA_ASSIGN_OR_RETURN(Operand addr, ParseOperand(OperandKind::kUse));
      ops.push_back(addr);
      RA_RETURN_IF_ERROR(parse_offset());
      break;
    }
    case Opcode::kCall:
    case Opcode::kInst: {
      std::vector<Type> results;
      absl::string_view rest = suffix;
      while (!rest.empty()) {
        absl::string_view part = rest.substr(0, rest.find('.'));
        RA_ASSIGN_OR_RETURN(Type t, suffix_type(part));
        results.push_back(t);
        rest = part.size() == rest.size() ? "" : rest.substr(part.size() + 1);
      }
      if (results.size() != num_defs) {
        return ErrorAt(op_pos, absl::StrCat("'", word, "' names ", results.size(), " result type(s) for ",
                                            num_defs, " result(s)"));
      }
      for (size_t i = 0; i < num_defs; ++i) {
        func_.EnsureValue(ops[i].value(), results[i]);
        MarkTyped(ops[i].value());
      }
      if (tok_.kind != Tok::kSigil || OnLaterLine(line)) {
        return Expected(d.opcode == Opcode::kCall ? "a callee (%name)" : "an instruction name (%name)");
      }
      d.imm = func_.InternCallee(tok_.text);
      RA_RETURN_IF_ERROR(Advance());
      RA_RETURN_IF_ERROR(ExpectPunct("("));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, true));
      RA_RETURN_IF_ERROR(ExpectPunct(")"));
      break;
    }
    case Opcode::kBranch: {
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(0));
      if (tok_.kind != Tok::kSigil || OnLaterLine(line)) return Expected("an instruction name (%name)");
      d.imm = func_.InternCallee(tok_.text);
      RA_RETURN_IF_ERROR(Advance());
      RA_RETURN_IF_ERROR(ExpectPunct("("));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, true));
      RA_RETURN_IF_ERROR(ExpectPunct(")"));
      while (IsPunct(",") && !OnLaterLine(line)) {
        RA_RETURN_IF_ERROR(Advance());
        RA_RETURN_IF_ERROR(ParseBranchTarget(line, targets, ops));
      }
      break;
    }
    case Opcode::kRet:
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(0));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, true));
      break;
    case Opcode::kJump:
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(0));
      RA_RETURN_IF_ERROR(ParseBranchTarget(line, targets, ops));
      break;
    case Opcode::kBr: {
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(0));
      if (OnLaterLine(line)) return Expected("a condition operand");
      RA_ASSIGN_OR_RETURN(Operand cond, ParseOperand(OperandKind::kUse));
      ops.push_back(cond);
      RA_RETURN_IF_ERROR(ExpectPunct(","));
      RA_RETURN_IF_ERROR(ParseBranchTarget(line, targets, ops));
      RA_RETURN_IF_ERROR(ExpectPunct(","));
      RA_RETURN_IF_ERROR(ParseBranchTarget(line, targets, ops));
      break;
    }
    case Opcode::kCopy:
    case Opcode::kSpill:
    case Opcode::kReload:
    case Opcode::kMove:
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(1));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, false));
      RA_RETURN_IF_ERROR(need_uses(1));
      break;
    case Opcode::kParallelCopy:
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, true));
      RA_RETURN_IF_ERROR(need_uses(num_defs));
      break;
    default:  // two-operand arithmetic
      RA_RETURN_IF_ERROR(need_suffix(false));
      RA_RETURN_IF_ERROR(need_defs(1));
      RA_RETURN_IF_ERROR(ParseOperandList(line, ops, false));
      RA_RETURN_IF_ERROR(need_uses(2));
      break;
  }
  RA_RETURN_IF_ERROR(ParseClobbers(line, d));
  if (!OnLaterLine(line)) return Expected("the end of the line after the instruction");

  // Definitions. A move-like pair naming one value re-locates it; a pair naming two
  // values defines the def's value, once per incoming edge after parameter lowering.
  for (size_t i = 0; i < num_defs; ++i) {
    Value v = ops[i].value();
    if (IsMoveLike(d.opcode)) {
      Value src = ops[num_defs + i].value();
      if (src == v) continue;
      if (!def_pos_.contains(v.index())) {
        def_pos_[v.index()] = def_positions[i];
        func_.EnsureValue(v, Type::kI64);  // refined by Finish()
      }
      inferred_.push_back(Inference{v, src, def_positions[i]});
      continue;
    }
    if (def_pos_.contains(v.index())) {
      SourcePos first = def_pos_[v.index()];
      return ErrorAt(def_positions[i], absl::StrCat("value v", values_.Written(v.index()), " is defined twice (first at ",
                                                     first.line, ":", first.col, ")"));
    }
    def_pos_[v.index()] = def_positions[i];
    if (d.opcode == Opcode::kConst || d.opcode == Opcode::kLoad || d.opcode == Opcode::kCmp) {
      func_.EnsureValue(v, d.type);
      MarkTyped(v);
    } else if (d.opcode != Opcode::kCall && d.opcode != Opcode::kInst) {
      func_.EnsureValue(v, Type::kI64);  // refined by Finish()
      inferred_.push_back(Inference{v, ops[num_defs].value(), def_positions[i]});
    }
  }
  if (ops.size() > 0xffff) return ErrorAt(op_pos, "an instruction with more than 65535 operands");
  if (targets.size() > 0xffff) return ErrorAt(op_pos, "a branch with more than 65535 targets");
  Inst inst = func_.NewInst(d, ops, targets);
  func_.block(current_).insts.push_back(inst);
  return absl::OkStatus();
}

absl::Status Parser::Finish() {
  // Every referenced block and used value must be defined.
  absl::Status missing;
  block_ref_pos_.ForEach([&](uint32_t b, SourcePos pos) {
    if (missing.ok() && !block_def_pos_.contains(b)) {
      missing = ErrorAt(pos, absl::StrCat("block", blocks_.Written(b), " is referenced but never defined"));
    }
  });
  use_pos_.ForEach([&](uint32_t v, SourcePos pos) {
    if (missing.ok() && !def_pos_.contains(v)) {
      missing = ErrorAt(pos, absl::StrCat("value v", values_.Written(v), " is used but never defined"));
    }
  });
  RA_RETURN_IF_ERROR(missing);
  // Result types of arithmetic, copies and moves follow their source; resolve in
  // rounds, since a use may precede its definition in layout order (loops).
  std::vector<uint8_t> known(func_.num_values(), 0);
  for (size_t v = 0; v < typed_.size() && v < known.size(); ++v) known[v] = typed_[v];
  std::vector<Inference> pending = inferred_;
  while (!pending.empty()) {
    std::vector<Inference> next;
    for (const Inference& item : pending) {
      if (known[item.value.index()]) continue;  // typed elsewhere; the verifier compares
      if (known[item.source.index()]) {
        func_.set_value_type(item.value, func_.value_type(item.source));
        known[item.value.index()] = 1;
      } else {
        next.push_back(item);
      }
    }
    if (next.size() == pending.size()) {
      return ErrorAt(next.front().pos, absl::StrCat("cannot infer the type of v",
                                                     values_.Written(next.front().value.index()),
                                                     ": its operands' types depend on it"));
    }
    pending = std::move(next);
  }
  // Final ids: as written, or dense with the written numbers kept as names.
  int num_values = 0, num_blocks = 0, num_slots = 0;
  std::vector<uint32_t> value_names, block_names, slot_names;
  std::vector<uint32_t> value_map = values_.Finalize(&num_values, &value_names);
  std::vector<uint32_t> block_map = blocks_.Finalize(&num_blocks, &block_names);
  std::vector<uint32_t> slot_map = slots_.Finalize(&num_slots, &slot_names);
  func_.Renumber(value_map, num_values, block_map, num_blocks, slot_map, num_slots);
  func_.SetNames(std::move(value_names), std::move(block_names), std::move(slot_names));
  return absl::OkStatus();
}

absl::StatusOr<Function> Parser::ParseFunctionDef() {
  if (!IsIdent("function")) return Expected("'function'");
  RA_RETURN_IF_ERROR(Advance());
  if (tok_.kind != Tok::kSigil) return Expected("a function name (%name)");
  func_ = Function();
  func_.set_name(std::string(tok_.text));
  def_pos_.clear();
  use_pos_.clear();
  block_ref_pos_.clear();
  block_def_pos_.clear();
  values_.clear();
  blocks_.clear();
  slots_.clear();
  inferred_.clear();
  typed_.clear();
  RA_RETURN_IF_ERROR(Advance());
  RA_RETURN_IF_ERROR(ExpectPunct("("));
  RA_ASSIGN_OR_RETURN(func_.mutable_param_types(), ParseTypeList(")"));
  RA_RETURN_IF_ERROR(ExpectPunct(")"));
  if (IsPunct("->")) {
    RA_RETURN_IF_ERROR(Advance());
    RA_ASSIGN_OR_RETURN(func_.mutable_result_types(), ParseTypeList(""));
  }
  RA_RETURN_IF_ERROR(ExpectPunct("{"));
  // Stack slot declarations: "ssN = stack_slot SIZE".
  while (tok_.kind == Tok::kIdent && NumberedName(tok_.text, "ss").has_value()) {
    uint32_t n = *NumberedName(tok_.text, "ss");
    SourcePos at = Here();
    RA_RETURN_IF_ERROR(Advance());
    RA_RETURN_IF_ERROR(ExpectPunct("="));
    if (!IsIdent("stack_slot")) return Expected("'stack_slot'");
    RA_RETURN_IF_ERROR(Advance());
    int size;
    if (tok_.kind != Tok::kIdent || !absl::SimpleAtoi(tok_.text, &size) || size <= 0 || size > (1 << 20)) {
      return Expected("a stack slot size in bytes (1 to 1048576)");
    }
    if (slots_.Find(n).has_value()) return ErrorAt(at, absl::StrCat("stack slot ss", n, " is declared twice"));
    func_.EnsureStackSlot(StackSlot(slots_.Id(n)), size);
    RA_RETURN_IF_ERROR(Advance());
  }
  // The frame summary: "saves %reg, %reg".
  if (IsIdent("saves")) {
    int line = tok_.line;
    RA_RETURN_IF_ERROR(Advance());
    RA_ASSIGN_OR_RETURN(RegSet saved, ParseRegisterList(line, "saves list"));
    func_.set_saved_regs(saved);
  }
  if (!IsPunct("}") && !(tok_.kind == Tok::kIdent && NumberedName(tok_.text, "block").has_value())) {
    return Expected("a block header (blockN:) or '}'");
  }
  while (!IsPunct("}")) {
    if (tok_.kind == Tok::kEnd) return Expected("'}' to close the function");
    if (tok_.kind == Tok::kIdent && NumberedName(tok_.text, "block").has_value()) {
      RA_RETURN_IF_ERROR(ParseBlockHeader());
    } else {
      RA_RETURN_IF_ERROR(ParseInst());
    }
  }
  RA_RETURN_IF_ERROR(Advance());
  RA_RETURN_IF_ERROR(Finish());
  return std::move(func_);
}

}  // namespace

absl::StatusOr<std::vector<Function>> ParseModule(absl::string_view text, const Target& target) {
  Parser parser(text, target);
  RA_RETURN_IF_ERROR(parser.Init());
  std::vector<Function> funcs;
  while (!parser.AtEnd()) {
    RA_ASSIGN_OR_RETURN(Function f, parser.ParseFunctionDef());
    funcs.push_back(std::move(f));
  }
  return funcs;
}

absl::StatusOr<Function> ParseFunction(absl::string_view text, const Target& target) {
  RA_ASSIGN_OR_RETURN(std::vector<Function> funcs, ParseModule(text, target));
  if (funcs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("expected exactly one function, found ", funcs.size()));
  }
  return std::move(funcs.front());
}

}  // namespace regalloc
