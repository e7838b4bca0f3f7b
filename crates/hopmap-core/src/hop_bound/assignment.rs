//! Minimum-cost assignment of `n` rows to distinct columns of an `n × m`
//! cost matrix (`n ≤ m`): the Hungarian method with potentials (Kuhn 1955,
//! Munkres 1957; the shortest-augmenting-path form of Jonker & Volgenant,
//! 1987). One row is added per phase by a Dijkstra-like scan over the
//! columns with reduced costs; the potentials keep every reduced cost
//! non-negative, so the assignment after the last phase is optimal.
//!
//! Cost: O(n² · m) time, O(m) memory besides the costs, which are read
//! through a function (so a matrix with repeated columns need not be
//! stored).

/// The least total cost of an assignment of every row `0..n` to a distinct
/// column `0..m` (`cost(row, column)`). Returns 0 for `n = 0` and infinity
/// when `n > m` (no assignment exists).
pub fn min_cost(n: usize, m: usize, cost: impl Fn(usize, usize) -> f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    if n > m {
        return f64::INFINITY;
    }
    // 1-based as in the classic statement: row/column 0 is the virtual start.
    let mut u = vec![0.0f64; n + 1];
    let mut v = vec![0.0f64; m + 1];
    let mut owner = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    let mut minv = vec![0.0f64; m + 1];
    let mut used = vec![false; m + 1];
    for i in 1..=n {
        owner[0] = i;
        let mut j0 = 0;
        minv.iter_mut().for_each(|x| *x = f64::INFINITY);
        used.iter_mut().for_each(|x| *x = false);
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0;
            for j in 1..=m {
                if used[j] {
                    continue;
                }
                let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                if cur < minv[j] {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if minv[j] < delta {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    (1..=m)
        .filter(|&j| owner[j] != 0)
        .map(|j| cost(owner[j] - 1, j - 1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_three_by_three_by_hand() {
        let c = [[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]];
        // Permutations: (0,1,2) 4+0+2=6, (0,2,1) 4+5+2=11, (1,0,2) 1+2+2=5,
        // (1,2,0) 1+5+3=9, (2,0,1) 3+2+2=7, (2,1,0) 3+0+3=6. Least: 5.
        assert_eq!(min_cost(3, 3, |i, j| c[i][j]), 5.0);
    }

    #[test]
    fn more_columns_than_rows_and_the_edge_cases() {
        // Two rows, three columns: row 0 best at column 2 (1), row 1 too
        // (1): one of them takes its second best: 1 + 3 = 4.
        let c = [[5.0, 9.0, 1.0], [3.0, 8.0, 1.0]];
        assert_eq!(min_cost(2, 3, |i, j| c[i][j]), 4.0);
        assert_eq!(min_cost(0, 3, |_, _| 1.0), 0.0);
        assert_eq!(min_cost(2, 1, |_, _| 1.0), f64::INFINITY);
    }
}
