// __shared__ declarations in the rewritten file (rewrite_parts.hpp): each becomes a reference to the
// emulator's shared memory, marked unread where nvcc would allocate it no shared memory.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rewrite_parts.hpp"

namespace tlemu_rewrite::parts {
namespace {

using namespace source;

struct SharedDeclarations : SourceView {
  std::string shared(size_t p, size_t& begin, size_t& end) {
    // The declaration runs from the code after the previous ; { } (or a label's :) to the next ;.
    size_t b = p;
    while (b > 0) {
      const size_t i = b - 1;
      if (code(i) && (s_[i] == ';' || s_[i] == '{' || s_[i] == '}' ||
                      (s_[i] == ':' && !(i > 0 && s_[i - 1] == ':') && !(i + 1 < s_.size() && s_[i + 1] == ':'))))
        break;
      if (k_[i] == Kind::Directive) break;
      b = i;
    }
    begin = skip_fwd(b);
    size_t semi = std::string::npos;
    int depth = 0;
    for (size_t i = p; i < s_.size(); ++i) {
      if (!code(i)) continue;
      const char c = s_[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && c == ';') {
        semi = i;
        break;
      }
      if (depth < 0) break;
    }
    if (semi == std::string::npos) fail(p, "a __shared__ declaration without its closing ;");
    end = semi + 1;
    const std::string decl = flat(begin, semi);

    // Drop the storage and alignment specifiers; remember `extern` (dynamic shared memory).
    std::string rest;
    bool dynamic = false;
    for (size_t i = 0; i < decl.size();) {
      if (is_ident(decl[i]) && (i == 0 || !is_ident(decl[i - 1]))) {
        size_t j = i;
        while (j < decl.size() && is_ident(decl[j])) ++j;
        const std::string word = decl.substr(i, j - i);
        if (word == "__shared__" || word == "static" || word == "__device__") {
          i = j;
          continue;
        }
        if (word == "extern") {
          dynamic = true;
          i = j;
          continue;
        }
        if (word == "__align__" || word == "alignas") {  // the runtime aligns every variable to 32
          size_t k = j;
          while (k < decl.size() && decl[k] == ' ') ++k;
          if (k < decl.size() && decl[k] == '(') {
            int d = 0;
            for (; k < decl.size(); ++k) {
              if (decl[k] == '(') ++d;
              if (decl[k] == ')' && --d == 0) break;
            }
            i = k + 1;
            continue;
          }
        }
        rest += word;
        i = j;
        continue;
      }
      rest += decl[i++];
    }
    {  // removing words leaves runs of spaces
      std::string t;
      for (char c : rest)
        if (!(c == ' ' && (t.empty() || t.back() == ' '))) t += c;
      rest = t;
    }
    // Declarators, split at top-level commas.
    std::vector<std::string> parts;
    {
      int d = 0;
      std::string cur;
      for (char c : rest) {
        if (c == '(' || c == '[' || c == '{' || c == '<') ++d;
        if (c == ')' || c == ']' || c == '}' || c == '>') --d;
        if (c == ',' && d == 0) {
          parts.push_back(cur);
          cur.clear();
        } else {
          cur += c;
        }
      }
      parts.push_back(cur);
    }
    auto trim = [](std::string t) {
      while (!t.empty() && t.front() == ' ') t.erase(t.begin());
      while (!t.empty() && t.back() == ' ') t.pop_back();
      return t;
    };
    // Splits "T *name[A][B]" into the text before the name, the name and the array bounds.
    auto split = [&](const std::string& t, std::string& before, std::string& name, std::string& dims) {
      size_t br = std::string::npos;
      int d = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '<' || t[i] == '(') ++d;
        if (t[i] == '>' || t[i] == ')') --d;
        if (t[i] == '[' && d == 0) {
          br = i;
          break;
        }
      }
      std::string head = trim(t.substr(0, br));
      dims = br == std::string::npos ? "" : trim(t.substr(br));
      if (head.find('=') != std::string::npos) fail(p, "a __shared__ variable cannot have an initializer");
      size_t n = head.size();
      while (n > 0 && is_ident(head[n - 1])) --n;
      name = head.substr(n);
      before = trim(head.substr(0, n));
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
        fail(p, "cannot read the __shared__ declaration: " + decl);
    };
    std::string type, name, dims;
    split(parts[0], type, name, dims);
    if (type.empty()) fail(p, "a __shared__ declaration without a type: " + decl);
    std::string base = type;  // without the first declarator's * and &
    while (!base.empty() && (base.back() == '*' || base.back() == '&' || base.back() == ' ')) base.pop_back();

    // The variable: a reference bound, each time the declaration runs, from a function-local static
    // pointer that the runtime sets once (shared_bind, not instrumented) to the arena address `init`
    // gives, so that every thread of every launch sees the same address. A pointer with a constant
    // initialiser (nullptr) has no guard, where a `static T& v = init;` has one that g++ reads with an
    // atomic load: device code then makes no atomic access but the kernel's own, which the builds that
    // see accesses report like any other (runtime/instrument.hpp). At namespace scope the same
    // (the reference is then a variable of static storage, initialised before main).
    auto bound = [](const std::string& t, const std::string& nm, const std::string& dm, const std::string& init) {
      const std::string slot = "tlemu_shared_" + nm;
      const std::string ptr = dm.empty() ? t + "* " + slot : t + " (*" + slot + ")" + dm;
      const std::string ref = dm.empty() ? t + "& " + nm : t + " (&" + nm + ")" + dm;
      return "static " + ptr + " = nullptr; " + ref + " = *(" + slot + " ? " + slot + " : ::tlemu::shared_bind(" +
             slot + ", " + init + "));";
    };
    std::string o;
    for (size_t k = 0; k < parts.size(); ++k) {
      std::string t = type, nm = name, dm = dims;
      if (k > 0) {
        std::string stars;
        split(parts[k], stars, nm, dm);
        t = base + (stars.empty() ? "" : " " + stars);
      }
      if (!o.empty()) o += ' ';
      if (dynamic) {
        if (dm.empty() || dm.find_first_not_of("[ ]") != std::string::npos)
          fail(p, "extern __shared__ takes an array of unknown size, e.g. extern __shared__ float " + nm + "[];");
        o += bound(t, nm, "[]", "::tlemu::dynamic_shared<" + t + "[]>(\"" + nm + "\", __FILE__, __LINE__)");
      } else if (dm.empty()) {
        o += bound(t, nm, "", "::tlemu::shared_var<" + t + ">(\"" + nm + "\", __FILE__, __LINE__" +
                                  read_flag(t, nm, dm, end) + ")");
      } else {
        // Each bound first in a static_assert of its own, so that a bound that is not a constant
        // (`int TILE_WIDTH = 16;`) is reported as nvcc reports it: on the student's line, naming
        // the variable, not from inside the emulator's shared_var<> template.
        for (const std::string& bound : bounds(dm))
          o += "static_assert((" + bound + ") > 0, \"the size of __shared__ array " + nm +
               " must be a constant expression greater than zero\"); ";
        o += bound(t, nm, dm, "::tlemu::shared_var<" + t + dm + ">(\"" + nm + "\", __FILE__, __LINE__" +
                                  read_flag(t, nm, dm, end) + ")");
      }
    }
    o.append(size_t(newlines(begin, end)), '\n');
    return o;
  }

  // ---- a __shared__ variable the kernel never reads (issue #40, item 2) ----
  // nvcc allocates no shared memory for a __shared__ variable that is never loaded: one only
  // declared, or only assigned to, is deleted with its stores (LLVM's GlobalOpt on an internal
  // addrspace(3) global), so the compiled kernel's attributes say 0 bytes and stages that require
  // shared memory refuse it. The emulator reports the same (static_shared_bytes counts read
  // variables only: runtime/core.cpp), from this reading of the source: after its declaration, to the
  // end of the block that declares it (the file, for one at namespace scope), every use of the name is
  // `name = ...` or `name[..]...[..] = ...` (a plain assignment, not `==` or a compound one). Anything
  // else counts as a read: any other use (an operand, `&name`, a call's argument, `+=`, `++`), a
  // volatile type (nvcc keeps volatile stores), the name in any preprocessor directive (a macro may
  // read it), or a `##` anywhere in one (a pasted name cannot be found). A `.name` or `->name` is a
  // member of something else. Returns the argument that marks the variable unread, or "".
  //
  // GlobalOpt also folds a variable stored only one constant (its initializer is undef, so every load
  // may read that constant) and then deletes it: `__shared__ float one; if (tx == 0) one = 1.0f;
  // __syncthreads(); P[i] = v * one;` reports 0 bytes on a GPU (redteam2-count-*). Measured with nvcc
  // 13.0 (-arch=sm_90, --resource-usage), stores then reads: a scalar stored 1.0f once, twice, -1.0f,
  // int 3, unconditionally, or read before its store: 0 bytes; a scalar stored 1.0f and 2.0f, stored a
  // loaded value, `c++`, `atomicAdd(&c, 1)`, its address taken, or volatile: kept; arrays indexed by
  // constants only (`t[0] = 1.0f` in t[1], t[2], t[64], `t[3][4]` in t[16][16], `t[0] = 1.0f; t[1] =
  // 2.0f`): 0 bytes (split into scalars, each folded); an index that is not a constant (`tile[ty][tx] =
  // 0.0f` then read; `t[threadIdx.x] = 1.0f` in t[2]): kept. So a variable of a built-in arithmetic
  // type also counts as unread (folds) when every use is of one element (the scalar, or an array
  // element named by integer literals, one per bound), each element's every store is a statement
  // `name... = C;` of one numeric literal C (its text without spaces, a leading `-` allowed: the same
  // text each time; a store after `;`, `{`, `}`, `else`, `do` or the `)` of `if`/`for`/`while`) and
  // every other use a plain rvalue: an operand of an arithmetic, comparison or logical operator, an
  // index, an initializer. Anything the reading cannot settle counts as a read (the emulator must never
  // refuse more than a GPU): `&name`, `++`, a compound assignment, a call's whole argument (a reference
  // parameter may write it), a `?:` branch, `return name`, a reference's initializer, `(name)`, a
  // constant written two ways (`1.0f` and `1.f`, or `one *= 1.0f`, which nvcc still folds).
  std::string read_flag(const std::string& type, const std::string& nm, const std::string& dims,
                        size_t from) const {
    return read_anywhere(type, nm, from) && !folds_to_constants(type, nm, dims, from) ? "" : ", false";
  }
  // The first use of the variable `nm` in [i, to) (`.nm` and `->nm`, members of something else,
  // skipped), or `to`.
  size_t next_use(const std::string& nm, size_t i, size_t to) const {
    for (; i < to; ++i) {
      if (!code(i) || !named_at(nm, i)) continue;
      if (!member_at(i)) return i;
      i += nm.size() - 1;
    }
    return to;
  }
  bool read_anywhere(const std::string& type, const std::string& nm, size_t from) const {
    if (type.find("volatile") != std::string::npos) return true;
    if (in_directive(nm)) return true;
    const size_t to = scope_end(from);
    for (size_t i = next_use(nm, from, to); i < to; i = next_use(nm, i + 1, to)) {
      size_t j = skip_fwd(i + nm.size());
      while (j < s_.size() && code(j) && s_[j] == '[') j = skip_fwd(match_fwd(j) + 1);
      if (!(j + 1 < s_.size() && code(j) && s_[j] == '=' && s_[j + 1] != '=')) return true;
      i = j;
    }
    return false;
  }
  // A store `name... = C;` may start a statement: after `;`, `{`, `}`, `else`, `do`, or the `)` of an
  // `if`, `for` or `while` header.
  bool statement_starts_after(size_t before) const {
    if (before == std::string::npos) return true;
    if (!code(before)) return false;
    const char c = s_[before];
    if (c == ';' || c == '{' || c == '}') return true;
    if (is_ident(c)) {
      const std::string w = word_ending(before);
      return w == "else" || w == "do";
    }
    if (c != ')') return false;
    int depth = 0;
    for (size_t i = before + 1; i-- > 0;) {
      if (!code(i)) continue;
      if (s_[i] == ')' || s_[i] == ']' || s_[i] == '}') ++depth;
      if ((s_[i] == '(' || s_[i] == '[' || s_[i] == '{') && --depth == 0) {
        if (s_[i] != '(' || i == 0) return false;
        const size_t w = skip_back(i - 1);
        if (w == std::string::npos || !code(w) || !is_ident(s_[w])) return false;
        const std::string kw = word_ending(w);
        return kw == "if" || kw == "for" || kw == "while";
      }
    }
    return false;
  }
  // The numeric literal (a leading `-` allowed) at i, its text without spaces, and the position after it.
  bool numeric_literal(size_t i, std::string& text, size_t& after) const {
    text.clear();
    if (i < s_.size() && code(i) && s_[i] == '-') {
      text = "-";
      i = skip_fwd(i + 1);
    }
    const auto digit = [&](size_t k) {
      return k < s_.size() && code(k) && std::isdigit(static_cast<unsigned char>(s_[k]));
    };
    if (!(digit(i) || (i < s_.size() && code(i) && s_[i] == '.' && digit(i + 1)))) return false;
    for (; i < s_.size() && code(i); ++i) {
      const char c = s_[i];
      const char p = text.empty() ? 0 : text.back();
      if (is_ident(c) || c == '.' || c == '\'' ||
          ((c == '+' || c == '-') && (p == 'e' || p == 'E' || p == 'p' || p == 'P')))
        text += c;
      else
        break;
    }
    after = i;
    return true;
  }
  // A use of the variable, not stored, whose value only is taken: what comes before it (at `before`)
  // and after it (at `after`, past its subscripts) allows no write and no reference.
  bool plain_rvalue(size_t before, size_t after) const {
    if (before == std::string::npos || !code(before) || after + 1 >= s_.size() || !code(after)) return false;
    const char b = s_[before], b0 = before > 0 ? s_[before - 1] : 0;
    const char a = s_[after], a1 = s_[after + 1], a2 = after + 2 < s_.size() ? s_[after + 2] : 0;
    bool ok_before = false;
    switch (b) {
      case '&': ok_before = b0 == '&'; break;                          // `&&`, not `&name`
      case '+': case '-': ok_before = b0 != b; break;                  // not `++`, `--`
      case '*': case '/': case '%': case '<': case '>': case '!': case '~': case '^': case '|': case '[':
        ok_before = true;
        break;
      case '(': case ',': ok_before = !(a == ')' || a == ','); break;  // not a call's whole argument
      case '=': {  // an initializer or assigned value: not of a reference (`float& r = name`)
        ok_before = true;
        for (size_t k = before; k-- > 0;) {
          if (!code(k)) continue;
          const char c = s_[k];
          if (c == ';' || c == '{' || c == '}') break;
          if (c == '&' && !(k > 0 && s_[k - 1] == '&') && s_[k + 1] != '&') ok_before = false;
        }
        break;
      }
      default: break;
    }
    if (!ok_before) return false;
    switch (a) {
      case ';': case ')': case ',': case ']': case '?': case ':': return true;
      case '+': case '-': return !(a1 == a || a1 == '=' || (a == '-' && a1 == '>'));
      case '&': case '|': return a1 == a || a1 != '=';
      case '*': case '/': case '%': case '^': return a1 != '=';
      case '!': return a1 == '=';
      case '=': return a1 == '=';
      case '<': case '>': return !(a1 == a && a2 == '=');
      default: return false;
    }
  }
  bool folds_to_constants(const std::string& type, const std::string& nm, const std::string& dims,
                          size_t from) const {
    static const std::set<std::string> arithmetic{"float", "double", "int", "unsigned", "signed",
                                                  "short", "long", "char", "bool"};
    {
      std::istringstream words(type);
      std::string w;
      bool any = false;
      while (words >> w) {
        if (!arithmetic.count(w)) return false;  // a pointer, a reference, a class, a template's T
        any = true;
      }
      if (!any || in_directive(nm)) return false;
    }
    const size_t rank = bounds(dims).size();
    std::vector<std::pair<std::string, std::string>> stored;  // element → its constant
    const size_t to = scope_end(from);
    for (size_t i = next_use(nm, from, to); i < to; i = next_use(nm, i + 1, to)) {
      std::string element;
      size_t n = 0;
      size_t j = skip_fwd(i + nm.size());
      while (j < s_.size() && code(j) && s_[j] == '[') {
        const size_t c = match_fwd(j);
        const std::string index = flat(j + 1, c);
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos ||
            (index.size() > 1 && index[0] == '0'))
          return false;  // not a decimal literal: which element is not known
        element += "[" + index + "]";
        ++n;
        j = skip_fwd(c + 1);
      }
      if (n != rank) return false;
      const size_t before = i == 0 ? std::string::npos : skip_back(i - 1);
      if (j + 1 < s_.size() && code(j) && s_[j] == '=' && s_[j + 1] != '=') {
        std::string constant;
        size_t after = 0;
        if (!statement_starts_after(before) || !numeric_literal(skip_fwd(j + 1), constant, after)) return false;
        after = skip_fwd(after);
        if (!(after < s_.size() && code(after) && s_[after] == ';')) return false;
        const auto same = std::find_if(stored.begin(), stored.end(), [&](const auto& e) { return e.first == element; });
        if (same == stored.end())
          stored.push_back({element, constant});
        else if (same->second != constant)
          return false;
        i = after;
        continue;
      }
      if (!plain_rvalue(before, j)) return false;
      i = j - 1;
    }
    return true;
  }
};

}  // namespace

std::string shared(const SourceView& src, size_t p, size_t& begin, size_t& end) {
  return SharedDeclarations{src}.shared(p, begin, end);
}

}  // namespace tlemu_rewrite::parts
