#include "tilelab/npy.hpp"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace tilelab {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void bad(const std::filesystem::path& p, const std::string& why) {
  throw BadInput(p.string() + ": " + why);
}

// The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
std::string dict_value(const std::string& header, const std::string& key,
                       const std::filesystem::path& p) {
  std::regex re("['\"]" + key + "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|True|False|\\([^)]*\\))");
  std::smatch m;
  if (!std::regex_search(header, m, re)) bad(p, "npy header has no '" + key + "' entry");
  return m[1];
}

}  // namespace

Matrix read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open file");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);

  char magic[6];
  if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0)
    bad(path, "not a NumPy .npy file (magic string \\x93NUMPY missing)");
  unsigned char version[2];
  if (!in.read(reinterpret_cast<char*>(version), 2)) bad(path, "truncated npy preamble");
  uint64_t header_len = 0;
  if (version[0] == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) bad(path, "truncated npy preamble");
    header_len = b[0] | (b[1] << 8);
  } else if (version[0] == 2 || version[0] == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) bad(path, "truncated npy preamble");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (uint64_t(b[3]) << 24);
  } else {
    bad(path, "unsupported npy format version " + std::to_string(version[0]));
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), std::streamsize(header_len)))
    bad(path, "truncated npy header (file ends inside it)");

  const std::string descr = dict_value(header, "descr", path);
  if (descr != "'<f4'" && descr != "\"<f4\"")
    bad(path, "wrong dtype " + descr + ": datasets hold little-endian float32 ('<f4'); "
              "convert with a.astype(np.float32)");
  if (dict_value(header, "fortran_order", path) != "False")
    bad(path, "array is in Fortran (column-major) order; save np.ascontiguousarray(a) instead");
  const std::string shape = dict_value(header, "shape", path);
  std::vector<int64_t> dims;
  std::regex num("\\d+");
  for (auto it = std::sregex_iterator(shape.begin(), shape.end(), num); it != std::sregex_iterator(); ++it)
    dims.push_back(std::stoll(it->str()));
  if (dims.size() != 2)
    bad(path, "array has rank " + std::to_string(dims.size()) + " (shape " + shape +
                  "); a matrix must be 2-D");

  Matrix m(dims[0], dims[1]);
  const uint64_t expected = uint64_t(m.size()) * sizeof(float);
  const uint64_t data_offset = 6 + 2 + (version[0] == 1 ? 2 : 4) + header_len;
  if (file_size - data_offset != expected)
    bad(path, "data is " + std::to_string(file_size - data_offset) + " bytes but shape " + shape +
                  " needs " + std::to_string(expected) + (file_size - data_offset < expected
                  ? " (file truncated)" : " (trailing bytes)"));
  if (!in.read(reinterpret_cast<char*>(m.data.data()), std::streamsize(expected)))
    bad(path, "cannot read the data");
  return m;
}

void write_npy(const std::filesystem::path& path, const Matrix& m) {
  std::ostringstream h;
  h << "{'descr': '<f4', 'fortran_order': False, 'shape': (" << m.rows << ", " << m.cols << "), }";
  std::string header = h.str();
  // Pad with spaces and a newline so that magic + version + length + header is 64-aligned.
  const size_t total = 6 + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 65535) throw std::runtime_error("npy header too long");

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path.string() + ": cannot create file");
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(m.data.data()), std::streamsize(m.size() * sizeof(float)));
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

}  // namespace tilelab
