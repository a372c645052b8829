#include "sim/swizzle/spec.h"

#include <algorithm>

#include <filesystem>
#include <limits>
#include <system_error>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/base/check.h"
#include "sim/base/file.h"
#include "sim/base/status_macros.h"
#include "sim/expr/printer.h"

namespace warpcheck::sim::swizzle {

using expr::ClauseForm;
using expr::ClauseSpec;
using expr::Scope;
using expr::Stmt;
using expr::StmtKind;
using expr::Type;

const expr::Dialect& SwizzleDialect() {
  static const expr::Dialect* dialect = [] {
    auto* d = new expr::Dialect;
    d->inputs = {{"iter", Type::kInt}};
    d->clauses = {
        ClauseSpec{"require", ClauseForm::kBare, Type::kBool, Scope::kParams, false,
                   false},
        ClauseSpec{"domain", ClauseForm::kAssign, Type::kInt, Scope::kParams, false,
                   true},
        ClauseSpec{"grid", ClauseForm::kNamed, Type::kInt, Scope::kParams, false, true},
        ClauseSpec{"out", ClauseForm::kNamed, Type::kInt, Scope::kInputs, true, true},
        ClauseSpec{"tail", ClauseForm::kNamed, Type::kInt, Scope::kInputs, false, true},
        ClauseSpec{"skip", ClauseForm::kBare, Type::kBool, Scope::kInputs, false, false},
        // `inverse iter = EXPR;`: a proof aid for verify/ (a left inverse of the map over
        // the tile coordinates); the enumerator does not evaluate it.
        ClauseSpec{"inverse", ClauseForm::kNamed, Type::kInt, Scope::kInputs, false,
                   true},
    };
    return d;
  }();
  return *dialect;
}

struct SwizzleSpec::Impl {
  expr::Program program;
  expr::CompiledProgram compiled;
  std::vector<const Stmt*> params;
  std::vector<int> param_slots;
  std::vector<std::string> coords;
  std::vector<const Stmt*> grids;
  std::vector<int> coord_slots;  // slot of each coordinate's `out`
  int rank_coord = -1;
  const Stmt* domain = nullptr;
  const Stmt* inverse = nullptr;
  int iter_slot = -1;

  struct Op {
    enum Kind : uint8_t { kStore, kRequire, kDomain, kGrid, kSkip, kTail } kind;
    int stmt;  // statement index
    int slot;  // kStore: destination; kGrid: coordinate index; kTail: the out's slot
  };
  std::vector<Op> phase1;  // once per parameter point
  std::vector<Op> phase2;  // per iteration

  explicit Impl(expr::Program p)
      : program(std::move(p)), compiled(expr::CompiledProgram::Compile(program)) {}

  std::string Where(const Stmt& s) const {
    return absl::StrCat(program.source_name(), ":", s.loc.line, ":", s.loc.col, ": ");
  }
};

namespace {

absl::Status ErrorAt(const expr::Program& p, expr::SourceLoc loc,
                     absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(p.source_name(), ":", loc.line, ":", loc.col, ": ", what));
}

std::string Subject(const Stmt& s) {
  return s.form == ClauseForm::kNamed ? absl::StrCat(s.keyword, " ", s.name) : s.keyword;
}

// Ensures: OK when the `inverse` clause reads `iter` only through the tile coordinates
//          (params, values of params, coordinates and lets computed from those), else
//          InvalidArgument at the first name that reads the iteration another way.
absl::Status CheckInverse(const SwizzleSpec::Impl& m) {
  const expr::Program& p = m.program;
  absl::flat_hash_set<std::string> coords(m.coords.begin(), m.coords.end());
  // Names that depend on `iter` other than through a coordinate.
  absl::flat_hash_set<std::string> direct = {"iter"};
  for (const Stmt& s : p.statements()) {
    if (&s == m.inverse) break;
    if (!s.binds || s.kind == StmtKind::kParam) continue;
    if (s.kind == StmtKind::kClause && coords.contains(s.name)) continue;
    for (const std::string& v : expr::FreeVariables(*s.value)) {
      if (direct.contains(v)) {
        direct.insert(s.name);
        break;
      }
    }
  }
  std::vector<const expr::Expr*> pending = {m.inverse->value.get()};
  while (!pending.empty()) {
    const expr::Expr* e = pending.back();
    pending.pop_back();
    if (e->kind() == expr::ExprKind::kVar && direct.contains(e->name())) {
      return ErrorAt(
          p, e->loc(),
          absl::StrCat("'inverse iter' may read the iteration only through the tile "
                       "coordinates (",
                       absl::StrJoin(m.coords, ", "), "), not through '", e->name(),
                       "'"));
    }
    for (int k = e->num_operands() - 1; k >= 0; --k) pending.push_back(&e->operand(k));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SwizzleSpec> SwizzleSpec::Parse(absl::string_view source_name,
                                               absl::string_view text) {
  ASSIGN_OR_RETURN(expr::Program program,
                   expr::ParseProgram(source_name, text, SwizzleDialect()));
  absl::StatusOr<SwizzleSpec> spec = FromProgram(std::move(program));
  // A clause missing from the whole program ("<source>: missing 'domain ...") is
  // reported where it is missing: at the end of the text.
  const std::string missing = absl::StrCat(source_name, ": missing '");
  if (spec.ok() || !absl::StartsWith(spec.status().message(), missing)) return spec;
  const size_t last_newline = text.rfind('\n');
  const size_t line = 1 + std::count(text.begin(), text.end(), '\n');
  const size_t column =
      1 + (last_newline == absl::string_view::npos ? text.size() : text.size() - last_newline - 1);
  return absl::Status(spec.status().code(),
                      absl::StrCat(source_name, ":", line, ":", column, ":",
                                   spec.status().message().substr(source_name.size() + 1)));
}

absl::StatusOr<SwizzleSpec> SwizzleSpec::Load(const std::string& path) {
  // A directory must not read as an empty program ("missing 'domain'"), whatever the
  // file system's read() does with one.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory, not a swizzle spec (.swz) file"));
  }
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open the file (", text.status().message(), ")"));
  }
  return Parse(path, *text);
}

absl::StatusOr<SwizzleSpec> SwizzleSpec::FromProgram(expr::Program program) {
  auto impl = std::make_shared<Impl>(std::move(program));
  const expr::Program& p = impl->program;
  const std::vector<Stmt>& stmts = p.statements();
  impl->iter_slot = impl->compiled.SlotOf("iter");
  if (impl->iter_slot < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        p.source_name(), ": not a swizzle-dialect program (no input 'iter')"));
  }

  // Phase classification: a statement runs per iteration when it is an out/tail/skip or
  // mentions the input or anything that runs per iteration.
  absl::flat_hash_set<std::string> per_iter_names = {"iter"};
  absl::flat_hash_set<std::string> out_names;
  for (int i = 0; i < static_cast<int>(stmts.size()); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::kParam) {
      impl->params.push_back(&s);
      impl->param_slots.push_back(impl->compiled.StmtSlot(i));
      continue;
    }
    const expr::Expr* per_iter_var = nullptr;
    for (const std::string& v : expr::FreeVariables(*s.value)) {
      if (per_iter_names.contains(v)) {
        // Find the node for the message position.
        std::vector<const expr::Expr*> pending = {s.value.get()};
        while (!pending.empty() && per_iter_var == nullptr) {
          const expr::Expr* e = pending.back();
          pending.pop_back();
          if (e->kind() == expr::ExprKind::kVar && e->name() == v) {
            per_iter_var = e;
            break;
          }
          for (int k = e->num_operands() - 1; k >= 0; --k) pending.push_back(&e->operand(k));
        }
        break;
      }
    }
    const bool is_clause = s.kind == StmtKind::kClause;
    const bool per_iter_kind =
        is_clause && (s.keyword == "out" || s.keyword == "tail" || s.keyword == "skip" ||
                      s.keyword == "inverse");
    if (is_clause && !per_iter_kind && per_iter_var != nullptr) {
      // The parser rejects direct input use; this catches a per-iteration output.
      return ErrorAt(
          p, per_iter_var->loc(),
          absl::StrCat("'", Subject(s),
                       "' may use only parameters and values computed from "
                       "them, not '",
                       per_iter_var->name(), "', which is computed per iteration"));
    }
    const bool phase2 = per_iter_kind || per_iter_var != nullptr;
    if (s.binds && phase2) per_iter_names.insert(s.name);
    using Op = Impl::Op;
    if (s.kind == StmtKind::kLet) {
      (phase2 ? impl->phase2 : impl->phase1)
          .push_back(Op{Op::kStore, i, impl->compiled.StmtSlot(i)});
    } else if (s.keyword == "require") {
      impl->phase1.push_back(Op{Op::kRequire, i, -1});
    } else if (s.keyword == "domain") {
      impl->domain = &s;
      impl->phase1.push_back(Op{Op::kDomain, i, -1});
    } else if (s.keyword == "grid") {
      if (impl->grids.size() == 4) {
        return ErrorAt(p, s.loc, "at most 4 'grid' coordinates are supported");
      }
      impl->phase1.push_back(Op{Op::kGrid, i, static_cast<int>(impl->grids.size())});
      impl->grids.push_back(&s);
      impl->coords.push_back(s.name);
    } else if (s.keyword == "out") {
      out_names.insert(s.name);
      impl->phase2.push_back(Op{Op::kStore, i, impl->compiled.StmtSlot(i)});
    } else if (s.keyword == "tail") {
      if (!out_names.contains(s.name)) {
        return ErrorAt(p, s.name_loc,
                       absl::StrCat("'tail ", s.name, "' needs an 'out ", s.name,
                                    " = ...;' above it (a tail states the exact value "
                                    "an output must have)"));
      }
      impl->phase2.push_back(Op{Op::kTail, i, impl->compiled.SlotOf(s.name)});
    } else if (s.keyword == "skip") {
      impl->phase2.push_back(Op{Op::kSkip, i, -1});
    } else if (s.keyword == "inverse") {
      if (s.name != "iter") {
        return ErrorAt(p, s.name_loc,
                       absl::StrCat("'inverse ", s.name,
                                    "': the inverse gives the iteration of a tile; write "
                                    "'inverse iter = ...;'"));
      }
      impl->inverse = &s;  // checked below, once the coordinates are known
    } else {
      return ErrorAt(
          p, s.loc,
          absl::StrCat("'", s.keyword, "' is not a clause of the swizzle dialect"));
    }
  }
  if (impl->domain == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(p.source_name(),
                     ": missing 'domain = ...;' (the number of iterations, e.g. "
                     "domain = R * C;)"));
  }
  if (impl->grids.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(p.source_name(),
                     ": missing 'grid' clauses (the extent of each tile coordinate, "
                     "e.g. grid row = R; grid col = C;)"));
  }
  for (size_t k = 0; k < impl->grids.size(); ++k) {
    const Stmt& g = *impl->grids[k];
    if (!out_names.contains(g.name)) {
      return ErrorAt(p, g.name_loc,
                     absl::StrCat("'grid ", g.name, "' has no matching 'out ", g.name,
                                  " = ...;' (a grid gives the extent of an output)"));
    }
    impl->coord_slots.push_back(impl->compiled.SlotOf(g.name));
    if (g.name == "rank") impl->rank_coord = static_cast<int>(k);
  }
  if (impl->inverse != nullptr) RETURN_IF_ERROR(CheckInverse(*impl));
  return SwizzleSpec(std::move(impl));
}

const expr::Program& SwizzleSpec::program() const { return impl_->program; }
const std::string& SwizzleSpec::source_name() const {
  return impl_->program.source_name();
}
const std::vector<const Stmt*>& SwizzleSpec::params() const { return impl_->params; }
const std::vector<std::string>& SwizzleSpec::coordinates() const { return impl_->coords; }
const std::vector<const Stmt*>& SwizzleSpec::grids() const { return impl_->grids; }
const Stmt& SwizzleSpec::domain() const { return *impl_->domain; }
const Stmt* SwizzleSpec::inverse() const { return impl_->inverse; }
bool SwizzleSpec::has_ranks() const { return impl_->rank_coord >= 0; }

absl::StatusOr<SpecInstance> SwizzleSpec::Instantiate(
    absl::Span<const int64_t> values) const {
  if (values.size() == impl_->params.size()) {
    for (size_t i = 0; i < values.size(); ++i) {
      const Stmt& s = *impl_->params[i];
      if (values[i] < s.lo || values[i] > s.hi) {
        return ErrorAt(impl_->program, s.name_loc,
                       absl::StrCat("parameter '", s.name, "' = ", values[i],
                                    " is outside its declared range ", s.lo, "..", s.hi));
      }
    }
  }
  return InstantiateUnchecked(values);
}

absl::StatusOr<SpecInstance> SwizzleSpec::InstantiateUnchecked(
    absl::Span<const int64_t> values) const {
  const Impl& m = *impl_;
  if (values.size() != m.params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(m.program.source_name(), ": ", values.size(),
                     " parameter values for ", m.params.size(), " parameters"));
  }
  SpecInstance inst;
  inst.spec_ = impl_;
  inst.values_.assign(values.begin(), values.end());
  inst.frame_.assign(m.compiled.num_slots(), 0);
  inst.extents_.assign(m.grids.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) inst.frame_[m.param_slots[i]] = values[i];
  auto at = [&] {
    return values.empty() ? std::string()
                          : absl::StrCat(" (at ", ToString(inst.params()), ")");
  };
  for (const Impl::Op& op : m.phase1) {
    const Stmt& s = m.program.statements()[op.stmt];
    absl::StatusOr<int64_t> v = m.compiled.StmtCode(op.stmt)->Eval(inst.frame_.data());
    if (!v.ok())
      return absl::InvalidArgumentError(absl::StrCat(v.status().message(), at()));
    switch (op.kind) {
      case Impl::Op::kStore:
        inst.frame_[op.slot] = *v;
        break;
      case Impl::Op::kRequire:
        if (*v == 0) {
          return absl::FailedPreconditionError(
              absl::StrCat(m.Where(s), "parameters (", ToString(inst.params()),
                           ") violate require ", expr::Print(*s.value)));
        }
        break;
      case Impl::Op::kDomain:
        if (*v < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(m.Where(s), "domain = ", *v, " is negative", at()));
        }
        inst.domain_ = *v;
        break;
      case Impl::Op::kGrid:
        if (*v <= 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              m.Where(s), "grid ", s.name, " = ", *v,
              " is not positive; exclude such points with a 'require'", at()));
        }
        inst.extents_[op.slot] = *v;
        break;
      default:
        WARPCHECK_CHECK(false) << "per-iteration op in phase 1";
    }
  }
  return inst;
}

const std::vector<std::string>& SpecInstance::coordinates() const {
  return spec_->coords;
}

int64_t SpecInstance::tiles() const {
  int64_t t = 1;
  for (size_t k = 0; k < extents_.size(); ++k) {
    if (static_cast<int>(k) == spec_->rank_coord) continue;
    if (__builtin_mul_overflow(t, extents_[k], &t))
      return std::numeric_limits<int64_t>::max();
  }
  return t;
}

int64_t SpecInstance::ranks() const {
  return spec_->rank_coord >= 0 ? extents_[spec_->rank_coord] : 1;
}

std::vector<NamedValue> SpecInstance::params() const {
  std::vector<NamedValue> out;
  for (size_t i = 0; i < values_.size(); ++i) {
    out.push_back({spec_->params[i]->name, values_[i]});
  }
  return out;
}

PointOutcome SpecInstance::Map(int64_t iter, int64_t* coords) const {
  const SwizzleSpec::Impl& m = *spec_;
  int64_t* frame = frame_.data();
  frame[m.iter_slot] = iter;
  bool bad_tail = false;
  for (const SwizzleSpec::Impl::Op& op : m.phase2) {
    int64_t v;
    if (!m.compiled.StmtCode(op.stmt)->TryEval(frame, &v)) return PointOutcome::kError;
    switch (op.kind) {
      case SwizzleSpec::Impl::Op::kStore:
        frame[op.slot] = v;
        break;
      case SwizzleSpec::Impl::Op::kSkip:
        if (v != 0) return PointOutcome::kSkip;
        break;
      case SwizzleSpec::Impl::Op::kTail:
        if (frame[op.slot] != v || v <= 0) bad_tail = true;
        break;
      default:
        break;
    }
  }
  for (size_t k = 0; k < m.coord_slots.size(); ++k) coords[k] = frame[m.coord_slots[k]];
  return bad_tail ? PointOutcome::kBadTail : PointOutcome::kTile;
}

absl::StatusOr<int64_t> SpecInstance::Value(absl::string_view name) const {
  int slot = spec_->compiled.SlotOf(name);
  if (slot < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec_->program.source_name(), ": no value named '", name, "'"));
  }
  return frame_[slot];
}

absl::StatusOr<SpecInstance::Point> SpecInstance::Explain(int64_t iter) const {
  const SwizzleSpec::Impl& m = *spec_;
  int64_t* frame = frame_.data();
  frame[m.iter_slot] = iter;
  Point point;
  for (const SwizzleSpec::Impl::Op& op : m.phase2) {
    const Stmt& s = m.program.statements()[op.stmt];
    absl::StatusOr<int64_t> v = m.compiled.StmtCode(op.stmt)->Eval(frame);
    if (!v.ok()) {
      std::vector<NamedValue> at = params();
      at.push_back({"iter", iter});
      return absl::InvalidArgumentError(
          absl::StrCat(v.status().message(), " (at ", ToString(at), ")"));
    }
    switch (op.kind) {
      case SwizzleSpec::Impl::Op::kStore:
        frame[op.slot] = *v;
        if (s.kind == StmtKind::kClause) point.outputs.push_back({s.name, *v});
        break;
      case SwizzleSpec::Impl::Op::kSkip:
        if (*v != 0) {
          point.skipped = true;
          return point;
        }
        break;
      case SwizzleSpec::Impl::Op::kTail:
        if (point.tail_error.empty() && (frame[op.slot] != *v || *v <= 0)) {
          point.tail_error =
              absl::StrCat("tail ", s.name, ": the output is ", frame[op.slot],
                           ", expected ", expr::Print(*s.value), " = ", *v,
                           *v <= 0 ? " (and tail sizes must be positive)" : "");
        }
        break;
      default:
        break;
    }
  }
  for (int slot : m.coord_slots) point.coords.push_back(frame[slot]);
  return point;
}

}  // namespace warpcheck::sim::swizzle
