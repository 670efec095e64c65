# SPDX-License-Identifier: GPL-2.0
# The bench's chart: gnuplot -e "dir='build/bench'" tools/bench/chart.gp
# Reads rates.dat, rtt.dat, mq.dat and meta.gp that xdpong-bench writes into dir.
if (!exists("dir")) dir = 'build/bench'
load dir.'/meta.gp'
have_rates = have_one || have_two
panels = have_rates + have_one + have_two + have_mq

set terminal pngcairo size 1400,(panels * 380 + 50) font ",10"
set output dir.'/bench.png'
set datafile missing 'NaN'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.75 border -1
set grid ytics
set key top left
set xtics nomirror
set yrange [0:*]

set multiplot layout panels, 1 title chart_title

set title 'Answered rate, 98-byte IPv4 echo over veth: peak and zero-loss (RFC 2544), Mpps'
set ylabel 'Mpps'
if (have_one && have_two) {
	plot dir.'/rates.dat' using 2:3:4:xtic(1) title 'one-cpu peak', \
	     '' using 5:6:7 title 'one-cpu zero-loss', \
	     '' using 8:9:10 title 'two-cpu peak', \
	     '' using 11:12:13 title 'two-cpu zero-loss'
} else { if (have_rates) {
	c = have_one ? 2 : 8
	l = have_one ? 'one-cpu' : 'two-cpu'
	plot dir.'/rates.dat' using c:c+1:c+2:xtic(1) title l.' peak', \
	     '' using c+3:c+4:c+5 title l.' zero-loss'
} }

if (have_mq) {
	set title sprintf('Multi-queue layout: answered rate on 1 queue and on %d ' . \
			  '(a generator, the responder and the sink on each CPU), Mpps', mq_queues)
	set label 1 mq_note at graph 0.99, graph 0.95 right front font ",9"
	set offsets 0, 0, graph 0.45, 0 # room above the bars for the targets
	plot dir.'/mq.dat' using 2:3:4:xtic(1) title '1 queue', \
	     '' using 5:6:7 title sprintf('%d queues', mq_queues)
	unset label 1
	set offsets 0, 0, 0, 0
}

set ylabel 'RTT, us (log)'
set logscale y
set yrange [1:*]
if (have_one) {
	set title 'RTT percentiles (kernel timestamps), one-cpu layout'
	plot dir.'/rtt.dat' using 2:3:4:xtic(1) title 'p50', \
	     '' using 5:6:7 title 'p90', \
	     '' using 8:9:10 title 'p99'
}
if (have_two) {
	set title 'RTT percentiles (kernel timestamps), two-cpu layout: responder on the other CPU'
	plot dir.'/rtt.dat' using 11:12:13:xtic(1) title 'p50', \
	     '' using 14:15:16 title 'p90', \
	     '' using 17:18:19 title 'p99'
}

unset multiplot
