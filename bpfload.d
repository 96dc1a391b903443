bpfload.o: bpfload.c bpfload.h measure.h irqclass.h sample.h \
 bpf/irqload.h irqload_ctx.lskel.h irqload_btf.lskel.h \
 irqload_raw.lskel.h
bpfload.h:
measure.h:
irqclass.h:
sample.h:
bpf/irqload.h:
irqload_ctx.lskel.h:
irqload_btf.lskel.h:
irqload_raw.lskel.h:
