
set terminal pngcairo size 800,520 font ",11"
set datafile separator ","
set key top left
set grid
set output "scaling.png"
set title "ball drop, CPU: time per step against skin nodes (32^2 .. 256^2 atlas)"
set xlabel "skin nodes"
set ylabel "ms / step (median over repeats)"
f(x) = -0.2950171420190433 + 0.00040747157220993516 * x
plot "scaling.csv" using 2:3:4:5 with yerrorbars pt 7 lc rgb "#1f77b4" title "median (min-max)", \
     f(x) with lines lc rgb "#d62728" title sprintf("fit: %.3g + %.3g us x nodes (R^2 = %.3f)", -0.2950171420190433, 0.4074715722099352, 0.9952020859615803)
set output "collision.png"
set title "ball drop, CPU: collision detection time against contact area (every step)"
set key outside right
set xlabel "colliding skin nodes (contact area in atlas texels)"
set ylabel "detect ms / step (both detection passes)"
set logscale y
plot "< awk -F, 'NR > 1 && $1 == \"scaling 32^2 (E 50 kPa)\"' collision.csv" using 4:5 with points pt 7 ps 0.5 lc rgb "#1f77b4" title "scaling 32^2 (E 50 kPa)", \
     "< awk -F, 'NR > 1 && $1 == \"scaling 64^2 (E 50 kPa)\"' collision.csv" using 4:5 with points pt 7 ps 0.5 lc rgb "#ff7f0e" title "scaling 64^2 (E 50 kPa)", \
     "< awk -F, 'NR > 1 && $1 == \"scaling 128^2 (E 50 kPa)\"' collision.csv" using 4:5 with points pt 7 ps 0.5 lc rgb "#2ca02c" title "scaling 128^2 (E 50 kPa)", \
     "< awk -F, 'NR > 1 && $1 == \"scaling 256^2 (E 50 kPa)\"' collision.csv" using 4:5 with points pt 7 ps 0.5 lc rgb "#d62728" title "scaling 256^2 (E 50 kPa)", \
     "< awk -F, 'NR > 1 && $1 == \"128^2 E 3 kPa\"' collision.csv" using 4:5 with points pt 5 ps 0.5 lc rgb "#9467bd" title "128^2 E 3 kPa", \
     "< awk -F, 'NR > 1 && $1 == \"128^2 E 10 kPa\"' collision.csv" using 4:5 with points pt 5 ps 0.5 lc rgb "#8c564b" title "128^2 E 10 kPa", \
     "< awk -F, 'NR > 1 && $1 == \"128^2 E 30 kPa\"' collision.csv" using 4:5 with points pt 5 ps 0.5 lc rgb "#e377c2" title "128^2 E 30 kPa", \
     "< awk -F, 'NR > 1 && $1 == \"128^2 E 100 kPa\"' collision.csv" using 4:5 with points pt 5 ps 0.5 lc rgb "#7f7f7f" title "128^2 E 100 kPa", \
     "< awk -F, 'NR > 1 && $1 == \"128^2 E 300 kPa\"' collision.csv" using 4:5 with points pt 5 ps 0.5 lc rgb "#bcbd22" title "128^2 E 300 kPa"
