// Threads as loops between barriers (issue 45; MCUDA's and POCL's "work-item loops"): a second,
// resumable copy of a kernel's body, compiled only where TLEMU_THREAD_LOOPS is defined (the plain
// build, when CMake's TILELAB_EMU_THREAD_LOOPS is on). With it, thread 0 of each block runs every
// thread of the block itself (tilelab_emu.h, run_as_loops): thread 0 from its last barrier to its
// next, then thread 1, ..., the order in which the contexts run them today, so every result and
// finding is the same; what goes is the context switch at each barrier of each thread.
//
// The copy is a state machine (a protothread): each thread's locals that live in a scope holding a
// barrier sit in a per-thread frame (declarations there become assignments to the frame's member,
// reached through a reference of the same name), each `__syncthreads();` records the arrival as the
// runtime's barrier does and returns; the thread's next step jumps back to just after it. Because
// the same thread states are recorded, the runtime's release judges divergent barriers (threads
// that returned, threads at different barriers) exactly as before: nothing needs a fall back once
// the copy compiles. A kernel the copy cannot express safely is left as it is (the contexts run it):
//   - warp operations, cooperative groups, wmma, the kit's PTX wrappers, __syncthreads_count/and/or,
//     a lambda, goto, inline assembly, or a preprocessor line in the body;
//   - a call of a device function or macro that holds a barrier or a warp operation;
//   - a barrier that is not a plain statement `__syncthreads();` after `;`, `{` or `}`, or a block
//     holding one that is the unbraced body of another statement;
//   - in a scope holding a barrier: a declaration of a type it does not know (auto, a class, a
//     template), one without an initializer (its value would be the frame's zero, where today it is
//     what the thread's stack held: a wrong kernel must stay wrong), a name declared twice there or
//     used before its declaration, a static other than the __shared__ declarations at the top.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct Hoisted {
  std::string type, name, dims;  // the frame's member: `type name dims;`
  size_t declared_at;            // the declaration statement's start
};

// One declaration statement [begin, end) (end: after its `;`) and what it becomes in the copy.
struct Replacement {
  size_t begin, end;
  std::string text;
};

const std::set<std::string>& known_types() {
  static const std::set<std::string> t = {
      "unsigned", "signed", "int",      "long",     "short",    "char",     "float",    "double",
      "bool",     "size_t", "ptrdiff_t", "int8_t",  "uint8_t",  "int16_t",  "uint16_t", "int32_t",
      "uint32_t", "int64_t", "uint64_t", "half",    "__half",   "float2",   "float4",   "int2",
      "int4",     "uint2",  "uint4",    "dim3",     "uint3",    "double2"};
  return t;
}

// Words that start a statement without declaring anything.
const std::set<std::string>& statement_keywords() {
  static const std::set<std::string> k = {"return", "if", "for", "while", "do", "else", "break", "continue",
                                          "TLEMU_UNROLL_DEFAULT", "TLEMU_UNROLL", "static_assert", "printf"};
  return k;
}

// Words after which the copy cannot be trusted (see the file's comment).
bool refused_word(const std::string& w) {
  static const char* const prefixes[] = {"__shfl", "__ballot", "__any", "__all", "__syncwarp", "__activemask",
                                         "__match", "__reduce", "__syncthreads_", "wmma", "nvcuda", "mma",
                                         "cooperative_groups", "this_thread_block", "tiled_partition", "ldmatrix",
                                         "cp_async", "tilelab", "goto", "asm", "__asm", "throw", "try", "co_",
                                         "setjmp", "longjmp", "tlemu_"};
  for (const char* p : prefixes)
    if (w.compare(0, std::char_traits<char>::length(p), p) == 0) return true;
  return w == "cg" || w == "switch" || w == "case" || w == "typedef" || w == "using";
}

class Looper : SourceView {
 public:
  Looper(const std::string& s, const std::vector<Kind>& k) : SourceView(s, k) {}

  std::string run() {
    const std::string first_line = s_.substr(0, s_.find('\n'));
    if (first_line.compare(0, 8, "#line 1 ") != 0) return s_;
    file_ = first_line.substr(8);
    const std::vector<DeviceFunction> fns = device_functions();
    const std::set<std::string> holders = barrier_holders(fns);
    std::vector<Replacement> inserts;
    for (const DeviceFunction& f : fns) {
      if (!f.global) continue;
      Replacement r;
      if (looped(f, holders, r)) inserts.push_back(r);
    }
    for (auto& r : inserts) r.end = r.begin;  // insertions: nothing of the source replaced
    return applied(inserts, 0, s_.size());
  }

 private:
  std::string file_;

  std::string word_at_pos(size_t i) const {
    size_t e = i;
    while (e < s_.size() && is_ident(s_[e])) ++e;
    return s_.substr(i, e - i);
  }
  bool word_start(size_t i) const { return code(i) && is_ident(s_[i]) && (i == 0 || !is_ident(s_[i - 1])); }

  // Names of device functions and macros whose text holds a barrier, a warp operation or a call of
  // another such (to a fixed point): a kernel calling one is left to the contexts.
  std::set<std::string> barrier_holders(const std::vector<DeviceFunction>& fns) const {
    std::set<std::string> held;
    auto holds = [&](size_t b, size_t e, bool directive) {
      for (size_t i = b; i < e; ++i) {
        if (!(directive ? k_[i] == Kind::Directive : code(i)) || !is_ident(s_[i]) || (i > 0 && is_ident(s_[i - 1])))
          continue;
        const std::string w = word_at_pos(i);
        if (w == "__syncthreads" || refused_word(w) || held.count(w)) return true;
      }
      return false;
    };
    for (bool grew = true; grew;) {
      grew = false;
      for (const DeviceFunction& f : fns)
        if (!held.count(f.name) && holds(f.open, f.close, false)) grew = held.insert(f.name).second || grew;
      for (size_t i = 0; i < s_.size(); ++i) {  // #define NAME ... (the name, then its text)
        if (k_[i] != Kind::Directive || (i > 0 && k_[i - 1] == Kind::Directive)) continue;
        size_t e = i;
        while (e < s_.size() && k_[e] == Kind::Directive) ++e;
        const std::string d = directive_text(i, e);
        const size_t def = d.find("define");
        if (def == std::string::npos) continue;
        size_t n = d.find_first_not_of(" \t", def + 6);
        if (n == std::string::npos) continue;
        size_t ne = n;
        while (ne < d.size() && is_ident(d[ne])) ++ne;
        const std::string name = d.substr(n, ne - n);
        if (!held.count(name) && holds(i, e, true)) {
          held.insert("#" + name);  // a macro: any use of its name counts
          grew = held.insert(name).second || grew;
        }
      }
    }
    return held;
  }

  // [b, e) of the source with the replacements (in order, not overlapping), each followed by the
  // newlines of what it replaced that its text does not hold, so that the lines keep their numbers.
  std::string applied(const std::vector<Replacement>& reps, size_t b, size_t e) const {
    std::string out;
    for (const Replacement& r : reps) {
      out.append(s_, b, r.begin - b);
      out += r.text;
      const auto kept = size_t(std::count(r.text.begin(), r.text.end(), '\n'));
      const auto replaced = size_t(newlines(r.begin, r.end));
      if (replaced > kept) out.append(replaced - kept, '\n');
      b = r.end;
    }
    return out.append(s_, b, e - b);
  }

  // The first code character `stop` at bracket depth 0 in [b, e) (a closing bracket of an enclosing
  // level also ends the search); e when there is none.
  size_t at_depth0(size_t b, size_t e, char stop) const {
    for (int depth = 0; b < e; ++b) {
      if (!code(b)) continue;
      const char c = s_[b];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return e;
        --depth;
      }
      if (depth == 0 && c == stop) return b;
    }
    return e;
  }

  // The next code character at or after i, skipping whitespace and comments.
  size_t next_code(size_t i) const { return skip_fwd(i); }
  size_t prev_code(size_t i) const { return i == 0 ? std::string::npos : skip_back(i - 1); }

  // Whether the statement starting at q may hold a declaration: reads it as one if it is, into
  // `hoisted` and the replacement `rep`; false refuses the kernel.
  bool declaration(size_t q, size_t block_close, std::vector<Hoisted>& hoisted, std::vector<Replacement>& reps,
                   bool in_for_init) const {
    if (!word_start(q)) return true;  // an expression statement, a block, ...
    std::string w = word_at_pos(q);
    if (statement_keywords().count(w) || w == "static") return true;  // static: checked by the caller
    size_t p = q;
    bool constant = false, constexpr_ = false;
    std::string type;
    for (;;) {
      w = word_at_pos(p);
      if (w == "const") constant = true;
      else if (w == "constexpr") constexpr_ = true;
      else if (known_types().count(w)) type += (type.empty() ? "" : " ") + w;
      else break;
      p = next_code(p + w.size());
      if (!word_start(p)) break;
    }
    if (type.empty()) {
      // `name name`, `name<`, `name::`, `name&`, `name*`: a declaration of a type this does not know.
      const size_t after = next_code(q + word_at_pos(q).size());
      if (constant || constexpr_) return false;
      return !(after < s_.size() && (word_start(after) || s_[after] == '<' || s_[after] == ':' || s_[after] == '&' ||
                                     s_[after] == '*'));
    }
    bool pointer = false;
    if (s_[p] == '*') {
      pointer = true;
      p = next_code(p + 1);
      if (!word_start(p) || word_at_pos(p) == "const") return false;
    }
    // The declarators up to the `;` (a for's init: up to its first `;`).
    const size_t end = at_depth0(p, block_close, ';');
    if (end >= block_close) return false;
    if (constexpr_ || (constant && !pointer && constant_text(p, end))) {
      // A constant: kept a declaration, static (so the jump may cross it; its value is the same).
      if (in_for_init) return false;
      reps.push_back({q, q, constexpr_ ? "static " : "static constexpr "});
      return true;
    }
    std::string text;
    size_t d = p;
    while (d < end) {
      if (!word_start(d)) return false;
      const std::string name = word_at_pos(d);
      size_t e = next_code(d + name.size());
      std::string dims;
      while (e < end && s_[e] == '[') {
        const size_t c = match_fwd(e);
        dims += s_.substr(e, c + 1 - e);
        e = next_code(c + 1);
      }
      if (e >= end || s_[e] != '=') return false;  // no initializer (or a braced/parenthesised one)
      const size_t v = e + 1, ve = at_depth0(v, end, ',');
      if (dims.empty()) {
        text += name + " = (" + s_.substr(v, ve - v) + ");";
      } else {
        const std::string init = flat(v, ve);
        if (init != "{}" && init != "{0}" && init != "{0.0f}" && init != "{0.f}" && init != "{0.0}") return false;
        text += "::tlemu::loop_zero(" + name + ");";
      }
      hoisted.push_back({pointer ? (constant ? "const " : "") + type + "*" : type, name, dims, q});
      d = ve < end ? next_code(ve + 1) : end;
    }
    if (in_for_init) {
      if (text.empty()) return false;
      text.pop_back();  // the for's own `;` stays
      for (size_t i = 0; i + 1 < text.size(); ++i)
        if (text[i] == ';') text[i] = ',';
      reps.push_back({q, end, text});
    } else {
      reps.push_back({q, end + 1, text});
    }
    return true;
  }

  // [b, e) holds only literals, operators and parentheses: a constant expression.
  bool constant_text(size_t b, size_t e) const {
    const size_t eq = [&] {
      for (size_t i = b; i < e; ++i)
        if (code(i) && s_[i] == '=') return i;
      return e;
    }();
    if (eq == e) return false;
    for (size_t i = eq + 1; i < e; ++i) {
      if (!code(i) || !is_ident(s_[i])) continue;
      if (!std::isdigit(static_cast<unsigned char>(s_[i])) && (i == 0 || !std::isalnum(static_cast<unsigned char>(s_[i - 1])))) {
        return false;  // an identifier (a digit-led word is a number with its suffix)
      }
    }
    return true;
  }

  bool looped(const DeviceFunction& f, const std::set<std::string>& holders, Replacement& out) const {
    // Where the copy starts: after the __shared__ declarations at the top of the body (statics, which
    // the copy must share with the body, not declare again).
    size_t start = f.open + 1;
    // ... and the reference each is bound through (rewrite_shared.cpp: `T (&v)[A] = *(... shared_bind(...))`).
    const auto shared_binding = [&](size_t q) { return s_.find("::tlemu::shared_bind(", q) < at_depth0(q, f.close, ';'); };
    for (size_t q = next_code(start);
         q < f.close && (word_at(q, "static") || word_at(q, "static_assert") || shared_binding(q));
         q = next_code(start)) {
      start = at_depth0(q, f.close, ';') + 1;
    }
    // Refusals over the body, and the barriers.
    std::vector<size_t> barriers;
    for (size_t i = start; i < f.close; ++i) {
      if (k_[i] == Kind::Directive) return false;
      if (!word_start(i)) {
        if (code(i) && s_[i] == '[') {
          const size_t n = next_code(i + 1);
          if (n < f.close && (s_[n] == '&' || s_[n] == '=' || s_[n] == ']')) return false;  // a lambda
        }
        continue;
      }
      const std::string w = word_at_pos(i);
      if (w == "static" || w == "static_assert" || refused_word(w)) return false;
      if (holders.count(w) && w != "__syncthreads") {  // a macro's use, or a function's call
        const size_t n = next_code(i + w.size());
        if (holders.count("#" + w) || (n < f.close && s_[n] == '(')) return false;
      }
      if (w == "__syncthreads") {
        size_t p = next_code(i + w.size());
        if (p >= f.close || s_[p] != '(') return false;
        p = next_code(p + 1);
        if (p >= f.close || s_[p] != ')') return false;
        p = next_code(p + 1);
        if (p >= f.close || s_[p] != ';') return false;
        const size_t before = prev_code(i);
        if (before == std::string::npos || !(s_[before] == ';' || s_[before] == '{' || s_[before] == '}')) return false;
        barriers.push_back(i);
      }
      i += w.size() - 1;
    }
    if (barriers.empty()) return false;
    // The blocks that hold a barrier (each barrier's enclosing braces, up to the body's).
    std::set<size_t> blocks;  // their `{`
    for (size_t b : barriers) {
      std::vector<size_t> open;
      for (size_t i = start; i < b; ++i) {
        if (!code(i)) continue;
        if (s_[i] == '{') open.push_back(i);
        if (s_[i] == '}' && !open.empty()) open.pop_back();
      }
      for (size_t o : open) blocks.insert(o);
    }
    std::vector<Hoisted> hoisted;
    std::vector<Replacement> reps;
    // Each block's own statements: the declarations among them move to the frame.
    auto scan = [&](size_t b, size_t e) {  // (b, e): inside a block's braces, or the body from start
      size_t q = next_code(b);
      while (q < e) {
        if (!declaration(q, e, hoisted, reps, false)) return false;
        // The next statement: after the `;` or block `}` that ends this one at depth 0.
        size_t i = q;
        for (int depth = 0; i < e; ++i) {
          if (!code(i)) continue;
          const char c = s_[i];
          if (c == '(' || c == '[' || c == '{') ++depth;
          if (c == ')' || c == ']') --depth;
          if (c == '}' && --depth == 0) {
            // A block ends the statement unless a `;`, `else` or `while` continues it (= {..};, do {} while).
            const size_t n = next_code(i + 1);
            if (n < e && (s_[n] == ';' || s_[n] == ',' || word_at(n, "else") || word_at(n, "while"))) continue;
            break;
          }
          if (depth == 0 && c == ';') break;
        }
        q = next_code(i + 1);
      }
      return true;
    };
    if (!scan(start, f.close)) return false;
    for (size_t o : blocks) {
      if (o <= start) continue;
      const size_t close = match_fwd(o);
      if (!scan(o + 1, close)) return false;
      const size_t before = prev_code(o);
      if (before == std::string::npos) return false;
      if (s_[before] == ')') {
        // A control statement's block: the statement must itself stand at a statement's place, and
        // a for's init declaration moves to the frame as well.
        const size_t open = paren_open(before);
        if (open == std::string::npos) return false;
        const std::string kw = ident_before(open);
        if (kw != "for" && kw != "while" && kw != "if") return false;
        size_t kwpos = prev_code(open);
        kwpos -= kw.size() - 1;
        size_t at = prev_code(kwpos);
        if (at != std::string::npos && word_end_is(at, "TLEMU_UNROLL_DEFAULT")) at = prev_code(at - 19);
        if (at != std::string::npos && s_[at] == ')' && word_before_paren_is(at, "TLEMU_UNROLL")) return false;
        if (at == std::string::npos || !(s_[at] == ';' || s_[at] == '{' || s_[at] == '}' || word_end_is(at, "else")))
          return false;
        if (kw == "for") {
          const size_t init = next_code(open + 1);
          if (!declaration(init, before, hoisted, reps, true)) return false;
        }
      } else if (word_end_is(before, "else") || word_end_is(before, "do")) {
        if (word_end_is(before, "else")) {
          size_t at = prev_code(before - 3);
          if (at == std::string::npos || s_[at] != '}') return false;  // `if (c) x; else {`: an unbraced if
        } else {
          const size_t at = prev_code(before - 1);
          if (at != std::string::npos && !(s_[at] == ';' || s_[at] == '{' || s_[at] == '}')) return false;
        }
      } else if (!(s_[before] == ';' || s_[before] == '{' || s_[before] == '}')) {
        return false;
      }
    }
    // Names: each declared once, and not named before its declaration (as a parameter, a global
    // the body used, or a variable of an inner scope): the frame's reference would change what
    // such a use names.
    std::set<std::string> names;
    for (const Hoisted& h : hoisted)
      if (!names.insert(h.name).second) return false;
    for (size_t i = f.at; i < f.close; ++i) {
      if (!word_start(i)) continue;
      const std::string w = word_at_pos(i);
      if (names.count(w) && !member_at(i))
        for (const Hoisted& h : hoisted)
          if (h.name == w && i < h.declared_at) return false;
      i += w.size() - 1;
    }
    // A scalar's address taken (`&name`): the step's local copy would not be where it points next step.
    for (size_t i = start; i < f.close; ++i) {
      if (!code(i) || s_[i] != '&' || s_[i + 1] == '&' || (i > 0 && s_[i - 1] == '&')) continue;
      const size_t before = prev_code(i);
      if (before != std::string::npos && (is_ident(s_[before]) || s_[before] == ')' || s_[before] == ']')) continue;
      const size_t n = next_code(i + 1);
      if (n < f.close && word_start(n) && names.count(word_at_pos(n))) return false;
    }
    // A for whose unbraced body may hold a barrier: its init would be crossed by the jump.
    for (size_t i = start; i < f.close; ++i) {
      if (!word_at(i, "for")) continue;
      const size_t open = next_code(i + 3);
      if (open >= f.close || s_[open] != '(') return false;
      const size_t close = match_fwd(open);
      const size_t body = next_code(close + 1);
      if (body < f.close && s_[body] == '{') continue;
      // The unbraced body: up to its `;`, unless it is a statement with a body of its own.
      size_t end = scope_end(i);
      if (!(word_at(body, "if") || word_at(body, "for") || word_at(body, "while") || word_at(body, "do") ||
            word_at(body, "else")))
        end = at_depth0(body, end, ';');
      for (size_t b : barriers)
        if (b > close && b < end) return false;
    }
    // The copy: the body from `start`, its declarations and barriers replaced.
    std::string save;
    for (const Hoisted& h : hoisted)
      if (h.dims.empty()) save += "tlemu_f." + h.name + " = " + h.name + "; ";
    for (size_t k = 0; k < barriers.size(); ++k) {
      const size_t b = barriers[k];
      size_t e = next_code(b + 13);
      e = next_code(e + 1);
      e = next_code(e + 1);  // the `;`
      const std::string n = std::to_string(k + 1);
      reps.push_back({b, e + 1,
                      "{ tlemu_f.tlemu_pc = " + n + "; " + save + "::tlemu::loop_arrive(__FILE__, __LINE__); return false; tlemu_resume_" +
                          n + ":; }" + std::string(size_t(newlines(b, e + 1)), '\n')});
    }
    for (size_t i = start; i < f.close; ++i)
      if (word_at(i, "return")) {
        const size_t n = next_code(i + 6);
        if (n >= f.close || s_[n] != ';') return false;
        reps.push_back({i, n, "return true"});
      }
    std::sort(reps.begin(), reps.end(), [](const Replacement& a, const Replacement& b) { return a.begin < b.begin; });
    for (size_t k = 1; k < reps.size(); ++k)
      if (reps[k].begin < reps[k - 1].end) return false;
    const std::string copy = applied(reps, start, f.close);
    // The frame and the dispatch, on lines of their own between #if and the restored line numbers.
    // A scalar is the step's own local, loaded from the frame when the step starts and stored back
    // at the barrier it stops at: as a reference into the frame, g++ would keep it in memory (a float
    // accumulator may alias the tiles' floats), a store and a load at each of its additions.
    std::string frame = "struct tlemu_frame { int tlemu_pc;";
    std::string refs;
    for (const Hoisted& h : hoisted) {
      frame += " " + h.type + " " + h.name + h.dims + ";";
      refs += (h.dims.empty() ? " auto " : " auto& ") + h.name + " = tlemu_f." + h.name + "; (void)" + h.name + ";";
    }
    frame += " };";
    std::string dispatch = " switch (tlemu_f.tlemu_pc) {";
    for (size_t k = 0; k < barriers.size(); ++k)
      dispatch += " case " + std::to_string(k + 1) + ": goto tlemu_resume_" + std::to_string(k + 1) + ";";
    dispatch += " default: break; }";
    const std::string line = std::to_string(line_of(start) - 1);  // the rewritten file's first line is #line 1
    out.begin = start;
    out.text = "\n#if defined(TLEMU_THREAD_LOOPS)\nif (::tlemu::loops_offered()) { " + frame +
               " ::tlemu::run_as_loops<tlemu_frame>([&](tlemu_frame& tlemu_f) -> bool {" + refs + dispatch +
               "\n#line " + line + " " + file_ + "\n" + copy + "\nreturn true; }); return; }\n#endif\n#line " + line +
               " " + file_ + "\n";
    return true;
  }

  bool word_end_is(size_t at, const char* w) const {
    const size_t n = std::char_traits<char>::length(w);
    return at + 1 >= n && word_at(at + 1 - n, w);
  }
  // The `(` matching the `)` at close, or npos.
  size_t paren_open(size_t close) const {
    for (size_t i = close + 1, depth = 0; i-- > 0;) {
      if (!code(i)) continue;
      if (s_[i] == ')') ++depth;
      if (s_[i] == '(' && --depth == 0) return i;
    }
    return std::string::npos;
  }
  bool word_before_paren_is(size_t close, const char* w) const {
    const size_t open = paren_open(close);
    return open != std::string::npos && ident_before(open) == w;
  }
};

}  // namespace

std::string thread_loops(const std::string& rewritten) {
  const std::vector<Kind> kinds = classify(rewritten);
  return Looper(rewritten, kinds).run();
}

}  // namespace tlemu_rewrite::parts
