// NumPy .npy files restricted to what datasets use: 2-D, little-endian float32 ('<f4'), C order.
// Reading anything else throws BadInput with a message that says what is wrong and how to fix it.
#pragma once
#include <filesystem>

#include "tilelab/matrix.hpp"

namespace tilelab {

Matrix read_npy(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, const Matrix& m);

}  // namespace tilelab
