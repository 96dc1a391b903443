json.o: json.c json.h report.h irqclass.h
json.h:
report.h:
irqclass.h:
