/*
 * gradcut: rank first the page that answers what a reader typed (html_search_scorer).
 *
 * Sphinx's own ranking requires every word of the query (one word that no page holds
 * empties the results: "tensor 的 version") and gives a page the score of its single best
 * word, so a page that mentions one word in a heading outranks the page whose title is
 * the whole question. Here every word counts, by how rare it is (idf) and where the page
 * has it: its title, a heading, the text, or a longer word that contains it. Pages that
 * hold more of the query rank first; a word no page holds is ignored; question words and
 * Chinese function words ("how do I", "的", "怎么") do not count. A result links to the
 * heading that holds most of the query.
 *
 * This file is appended to language_data.js, which the search page loads after
 * searchtools.js: it replaces Search._performSearch.
 */
(() => {
  // index: a term the glossary defines (the index entries)
  // exact: a heading that says just what the query says
  const WEIGHT = { exact: 10, index: 9, title: 8, heading: 4, text: 1, partial: 0.3 };
  // A page must hold at least this share of the best page's (idf-weighted) query words.
  const MIN_COVERAGE = 0.5;
  const FUNCTION_WORDS = new Set([
    // English question words, beyond Sphinx's stop words
    "how", "do", "does", "did", "i", "me", "my", "we", "our", "you", "your", "what",
    "why", "when", "where", "which", "who", "can", "could", "should", "would", "vs",
    "versus", "between", "get", "getting", "am", "an",
    "there", "way", "ways", "use", "using",
    // Chinese function and question words
    "的", "地", "得", "和", "与", "跟", "及", "或", "吗", "呢", "吧", "了", "着", "是", "在",
    "把", "被", "对", "从", "给", "我", "我们", "你", "要", "想", "能", "会", "有", "怎么",
    "怎样", "如何", "什么", "为什么", "为何", "哪些", "哪个", "一个", "这个",
    "那个", "时候", "时", "里", "中", "之", "怎么办", "应该", "可以", "使用", "用",
  ]);

  let prepared = null;
  const prepare = () => {
    if (prepared && prepared.index === Search._index) return prepared;
    const index = Search._index;
    const stemmer = new Stemmer();
    const words = (text) =>
      splitQuery(text)
        .map((w) => w.toLowerCase())
        .map((w) => (/^[a-z]/.test(w) ? stemmer.stemWord(w) : w));
    const titleWords = index.titles.map((t) => new Set(words(t)));
    const headings = []; // [file, anchor, Set(words), text]
    for (const [text, places] of Object.entries(index.alltitles)) {
      const set = new Set(words(text));
      for (const [file, anchor] of places) headings.push([file, anchor, set, text]);
    }
    const entries = []; // [file, anchor, Set(words)]
    for (const [text, places] of Object.entries(index.indexentries || {})) {
      const set = new Set(words(text));
      for (const [file, anchor] of places) entries.push([file, anchor, set]);
    }
    const files = (table, word) => {
      if (!Object.prototype.hasOwnProperty.call(table, word)) return [];
      const found = table[word];
      return found.length === undefined ? [found] : found;
    };
    prepared = {
      index, titleWords, headings, entries, files, termKeys: Object.keys(index.terms),
    };
    return prepared;
  };

  const performSearch = (query, searchTerms, excludedTerms) => {
    const { index, titleWords, headings, entries, files, termKeys } = prepare();
    const pages = index.docnames.length;
    const terms = [...searchTerms].filter((t) => !FUNCTION_WORDS.has(t));
    // where each page has each word: the best place counts
    const weights = new Map(); // file -> Map(word -> weight)
    const idf = new Map();
    const note = (file, word, weight) => {
      if (!weights.has(file)) weights.set(file, new Map());
      const w = weights.get(file);
      if ((w.get(word) || 0) < weight) w.set(word, weight);
    };
    for (const word of terms) {
      const inText = files(index.terms, word);
      const inHeadings = files(index.titleterms, word);
      const holders = new Set([...inText, ...inHeadings]);
      if (!holders.size && word.length > 2) {
        for (const term of termKeys) {
          if (term.includes(word)) files(index.terms, term).forEach((f) => holders.add(f));
        }
        holders.forEach((f) => note(f, word, WEIGHT.partial));
      }
      if (!holders.size) continue; // a word no page holds does not empty the results
      idf.set(word, Math.log(1 + pages / holders.size));
      inText.forEach((f) => note(f, word, WEIGHT.text));
      inHeadings.forEach((f) =>
        note(f, word, titleWords[f].has(word) ? WEIGHT.title : WEIGHT.heading),
      );
      for (const [f, , set] of entries) if (set.has(word)) note(f, word, WEIGHT.index);
    }
    // a heading that says nothing but words of the query: a section on just that
    for (const [file, , set] of headings) {
      const said = [...set].filter((w) => !FUNCTION_WORDS.has(w) && !stopwords.has(w));
      if (said.length && said.every((w) => idf.has(w)))
        said.forEach((w) => note(file, w, WEIGHT.exact));
    }
    const excluded = new Set();
    for (const word of excludedTerms) {
      files(index.terms, word).forEach((f) => excluded.add(f));
      files(index.titleterms, word).forEach((f) => excluded.add(f));
    }
    const total = [...idf.values()].reduce((a, b) => a + b, 0);
    const scored = [];
    for (const [file, found] of weights) {
      if (excluded.has(file)) continue;
      let score = 0;
      let covered = 0;
      for (const [word, weight] of found) {
        score += idf.get(word) * weight;
        covered += idf.get(word) * Math.min(weight, 1);
      }
      const coverage = total ? covered / total : 0;
      scored.push({ file, coverage, score: score * coverage * coverage });
    }
    const best = Math.max(0, ...scored.map((s) => s.coverage));
    const results = [];
    for (const { file, coverage, score } of scored) {
      if (coverage < best * MIN_COVERAGE) continue;
      // link to the heading (not the title) that holds most of the query
      let anchor = "";
      let most = 0;
      let heading = null;
      for (const [f, id, set, text] of headings) {
        if (f !== file || !id) continue;
        const n = terms.filter((t) => set.has(t)).length;
        if (n > most) [most, anchor, heading] = [n, "#" + id, text];
      }
      for (const [f, id, set] of entries) {
        if (f !== file || !id) continue;
        const n = terms.filter((t) => set.has(t)).length;
        if (n > most) [most, anchor, heading] = [n, "#" + id, null];
      }
      const title = index.titles[file];
      results.push([
        index.docnames[file],
        heading && heading !== title ? `${title} > ${heading}` : title,
        anchor,
        null,
        score,
        index.filenames[file],
        SearchResultKind.text,
      ]);
    }
    // searchtools shows the last result first
    results.sort((a, b) => a[4] - b[4] || (a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : 0));
    return results;
  };

  Search._performSearch = (query, searchTerms, excludedTerms) =>
    performSearch(query, searchTerms, excludedTerms);
})();
