#!/bin/bash
# usage: ab.sh tag rounds oldjar newjar
. /tmp/wt-quant/scripts/jdk25.sh
tag=$1; rounds=$2; old=$3; new=$4
for r in $(seq 1 $rounds); do
  for v in old new; do
    jar=$old; [ $v = new ] && jar=$new
    echo "== $tag round $r $v $(uptime)" >> /tmp/quant-ab/$tag.log
    java --enable-native-access=ALL-UNNAMED -jar $jar Fp8Quantiser -f 1 -wi 3 -i 5 2>&1 | grep -E "^Fp8QuantiserBenchmark" >> /tmp/quant-ab/$tag.log
  done
done
echo DONE >> /tmp/quant-ab/$tag.log
