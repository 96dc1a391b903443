metrics.o: metrics.c fileio.h metrics.h report.h irqclass.h
fileio.h:
metrics.h:
report.h:
irqclass.h:
