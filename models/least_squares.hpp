// Small dense least-squares solvers for the model fits (a handful of columns,
// up to tens of thousands of rows).
//
// Rows are given already weighted: to minimise sum_i w_i (x_i.theta - y_i)^2
// pass sqrt(w_i)*x_i and sqrt(w_i)*y_i. The fits use relative weighting
// (w_i = 1/y_i^2), so every row is divided by its measured time.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace cb::models {

// Row-major m x k design matrix with its right-hand side.
struct LinearSystem {
  std::size_t k = 0;          // columns
  std::vector<double> x;      // m*k entries
  std::vector<double> y;      // m entries
  std::size_t rows() const { return y.size(); }
  void add_row(const std::vector<double>& xi, double yi);
};

// Unconstrained least squares via Householder QR on column-scaled data.
// Returns nullopt when the columns are (numerically) linearly dependent.
std::optional<std::vector<double>> solve_least_squares(const LinearSystem& s);

// Non-negative least squares: min |X theta - y|^2 subject to theta >= 0.
// Exact for the few columns used here: the optimum is the unconstrained
// solution on its set of positive coefficients, so every column subset is
// solved and the best feasible one kept (2^k subsets, k <= 8).
std::vector<double> solve_nnls(const LinearSystem& s);

// Residual sum of squares of theta on s.
double residual_sum_squares(const LinearSystem& s, const std::vector<double>& theta);

}  // namespace cb::models
