# SPDX-License-Identifier: GPL-2.0-or-later
# accuracy.awk - how well irqtune's per-IRQ load estimate ranks and sizes
# the model's true loads. Used by tests/e2e/e2e-quality.sh and
# tests/bench/quality.sh:
#
#	awk -f tests/sim/accuracy.awk IRQTUNE_V_OUTPUT IRQSIM_SHOW_OUTPUT
#
# Prints "RHO ERR N": Spearman's rank correlation of the LOAD column of
# irqtune -v against the true load (ties get their average rank), the total
# absolute error in percent of the true total, and N, the IRQs with
# interrupts it was taken over; "- - 0" when fewer than three. With
# -v detail=1, first one "IRQ NAME ESTIMATE TRUE ERROR%" line per IRQ.
FNR == 1 { file++ }
file == 1 && $1 ~ /^[0-9]+$/ {
	for (i = 2; i <= NF; i++)
		if ($i ~ /^[0-9.]+%$/) { sub(/%$/, "", $i); est[$1] = $i / 100; break }
	next
}
file == 2 && FNR > 1 && $5 > 0 && ($1 in est) {
	n++; x[n] = est[$1]; y[n] = $6
	if (detail)
		printf "%s %s %.5f %.5f %+.1f\n", $1, $3, x[n], y[n], (y[n] > 0 ? 100 * (x[n] / y[n] - 1) : 0)
}
function rank(v, r,   i, j, lt, eq) {
	for (i = 1; i <= n; i++) {
		lt = 0; eq = 0
		for (j = 1; j <= n; j++) { lt += v[j] < v[i]; eq += v[j] == v[i] }
		r[i] = lt + (eq + 1) / 2
	}
}
END {
	if (n < 3) { print "- - 0"; exit }
	rank(x, rx); rank(y, ry)
	for (i = 1; i <= n; i++) { mx += rx[i]; my += ry[i] }
	mx /= n; my /= n
	for (i = 1; i <= n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) ^ 2; syy += (ry[i] - my) ^ 2
		err += (x[i] > y[i] ? x[i] - y[i] : y[i] - x[i]); tot += y[i]
	}
	rho = (sxx > 0 && syy > 0) ? sxy / sqrt(sxx * syy) : 1
	printf "%.3f %.1f %d\n", rho, (tot > 0 ? 100 * err / tot : 0), n
}
