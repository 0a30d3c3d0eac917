#!/usr/bin/env python3
"""One Apache Spark job of the analytics experiment, in local mode: the
seed's system, run by scripts/bench-analytics beside `strata job`.

    bench-analytics-spark.py wordcount|logreg INPUT --memory 512m
        [--cores 2] [--iterations 10] [--form dataframe|rdd] [--top 10]

Word count: split on what is not a letter or a digit, lowercase, count,
top N (the classic WordCount example's logic; `dataframe` uses
split/explode/groupBy, `rdd` flatMap/reduceByKey). Logistic regression:
batch gradient descent over the cached points, step 1, labels 1/-1 (the
SparkLR example's logic over a cached RDD with `rdd`; with `dataframe`,
pyspark.ml's LogisticRegression on a cached DataFrame, no regularization,
the same number of iterations). Prints one JSON line: job, form,
seconds (job time: session start excluded) and the result's head.
"""

import argparse
import json
import math
import re
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def session(memory, cores):
    return (SparkSession.builder.master(f"local[{cores}]")
            .appName("strata-bench-analytics")
            .config("spark.driver.memory", memory)
            .config("spark.sql.shuffle.partitions", str(cores * 2))
            .config("spark.ui.enabled", "false")
            .config("spark.sql.adaptive.enabled", "true")
            .getOrCreate())


def wordcount(spark, path, form, top):
    if form == "dataframe":
        lines = spark.read.text(path)
        words = lines.select(F.explode(F.split(F.lower(F.col("value")), r"[^\p{L}\p{N}]+")).alias("w"))
        counts = words.where(F.col("w") != "").groupBy("w").count()
        rows = counts.orderBy(F.desc("count"), F.asc("w")).limit(top).collect()
        return [[r["w"], r["count"]] for r in rows]
    splitter = re.compile(r"[^\w]+|_+")
    counts = (spark.sparkContext.textFile(path)
              .flatMap(lambda line: [w for w in splitter.split(line.lower()) if w])
              .map(lambda w: (w, 1))
              .reduceByKey(lambda a, b: a + b))
    return [list(p) for p in counts.takeOrdered(top, key=lambda p: (-p[1], p[0]))]


def logreg(spark, path, form, iterations):
    if form == "dataframe":
        from pyspark.ml.classification import LogisticRegression
        from pyspark.ml.feature import VectorAssembler
        frame = spark.read.csv(path, header=True, inferSchema=True)
        features = [c for c in frame.columns if c != "label"]
        data = VectorAssembler(inputCols=features, outputCol="features").transform(frame)
        data = data.select("label", "features").cache()
        data.count()
        model = LogisticRegression(maxIter=iterations, regParam=0.0, fitIntercept=False,
                                   standardization=False, tol=0.0).fit(data)
        return list(model.coefficients)
    # SparkLR: the points cached, one pass per iteration.
    def parse(line):
        values = [float(v) for v in line.split(",")]
        return (1.0 if values[0] > 0 else -1.0, values[1:])

    raw = spark.sparkContext.textFile(path)
    header = raw.first()
    points = raw.filter(lambda line: line != header).map(parse).cache()
    n = points.count()
    dims = len(points.first()[1])
    w = [0.0] * dims

    def gradient(point):
        y, x = point
        dot = sum(a * b for a, b in zip(w_b.value, x))
        factor = (1.0 / (1.0 + math.exp(-y * dot)) - 1.0) * y
        return [factor * v for v in x]

    for _ in range(iterations):
        w_b = spark.sparkContext.broadcast(w)
        g = points.map(gradient).reduce(lambda a, b: [p + q for p, q in zip(a, b)])
        w = [wj - gj / n for wj, gj in zip(w, g)]
    return w


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("job", choices=["wordcount", "logreg"])
    parser.add_argument("input")
    parser.add_argument("--memory", required=True)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--form", choices=["dataframe", "rdd"], default="dataframe")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    spark = session(args.memory, args.cores)
    spark.sparkContext.setLogLevel("ERROR")
    started = time.monotonic()
    if args.job == "wordcount":
        result = wordcount(spark, args.input, args.form, args.top)
    else:
        result = logreg(spark, args.input, args.form, args.iterations)
    seconds = time.monotonic() - started
    spark.stop()
    print(json.dumps({"job": args.job, "form": args.form, "seconds": seconds,
                      "result": result[:10]}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
