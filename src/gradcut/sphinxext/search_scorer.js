/*
 * gradcut: rank first the page that answers what a reader typed (html_search_scorer).
 *
 * Sphinx's own ranking requires every word of the query (one word that no page holds
 * empties the results: "tensor 的 version") and gives a page the score of its single best
 * word, so a page that mentions one word in a heading outranks the page whose title is
 * the whole question. Here the query is read as a reader means it, with the word lists of
 * search_words.toml (GRADCUT_SEARCH_WORDS, written in front of this file):
 *
 * - function words ("how do I", "的", "怎么") do not count;
 * - a word and its synonyms are one concept ("拷贝" finds the pages that say 复制); a page
 *   holds the concept through any of its words, the word as typed a little more; how
 *   rare a concept is (idf) counts the pages that hold any of its words;
 * - a negated word is looked up as its negation ("不安全", "not safe": unsafe), which is
 *   not the word itself; a negation the lists do not know leaves the word as it is;
 * - qualifiers (how a reader judges: "unsafe", "slow") and words that compare ("区别",
 *   "vs", "difference") weigh where a page has them, but do not decide whether a page
 *   holds the query: rare as they are in the pages, they would outweigh what the query
 *   is about. A comparison weighs as a title where a section compares what the query
 *   compares (a "side by side" heading over the APIs the query names);
 * - when the query names several APIs (names the prose writes as code), a page whose
 *   one section names them all ranks above a page that names them in different places
 *   (the index's gradcut_sections, written by search.py).
 *
 * Every concept counts by how rare it is and by where the page has it: its title, a
 * heading, the text, or a longer word that contains it. Pages that hold more of the
 * query rank first; a word no page holds is ignored. A result links to the section that
 * holds most of the query.
 *
 * This file is appended to language_data.js, which the search page loads after
 * searchtools.js: it replaces Search._performSearch.
 */
(() => {
  // index: a term the glossary defines (the index entries)
  // exact: a heading that says just what the query says
  // code: a piece of code typed as a section of the page writes it (its heading's code
  // weighs as the heading)
  const WEIGHT = { exact: 10, index: 9, title: 8, heading: 4, code: 3, text: 1, partial: 0.3 };
  // A word of the group of the word typed, rather than the word typed.
  const SYNONYM = 0.8;
  // A page must hold at least this share of the best page's (idf-weighted) query words.
  const MIN_COVERAGE = 0.5;
  // A page's score when its best section names this share of the query's APIs:
  // SECTION_FLOOR + (1 - SECTION_FLOOR) * share.
  const SECTION_FLOOR = 0.5;
  // A message pasted from a traceback: at least this many of its words in a row, this
  // many of them neither stop words nor numbers.
  const MESSAGE_RUN = 5;
  const MESSAGE_SAYS = 3;
  const WORDS =
    typeof GRADCUT_SEARCH_WORDS !== "undefined"
      ? GRADCUT_SEARCH_WORDS
      : { function: {}, comparison: {}, negation: {}, qualifiers: [], synonyms: [] };
  const all = (table) => Object.values(table).flat();
  const has = (table, key) => Object.prototype.hasOwnProperty.call(table, key);
  // code as search.py's code_text writes it: lower case, without spaces but one between
  // two words ("x[:, 0] = f(x[:, 0])": "x[:,0]=f(x[:,0])")
  const codeText = (text) =>
    text
      .trim()
      .toLowerCase()
      .replace(/(?<=[a-z0-9_])\s+(?=[a-z0-9_])/g, " ")
      .replace(/(?<![a-z0-9_])\s+|\s+(?![a-z0-9_])/g, "");
  // code, not a bare name nor a keyword argument alone (which the index holds as
  // words: "detach()", ".data", "requires_grad=false")
  const isCode = (text) =>
    text.length >= 3 &&
    text.length <= 80 &&
    /[a-z]/.test(text) &&
    !/^\.?[a-z_][a-z0-9_]*(\(\))?$/.test(text) &&
    !/^[a-z_][a-z0-9_]*=[a-z0-9_.]+$/.test(text);
  // whether code written by a page holds the code typed, not inside a longer name
  // ("t.add_(0)" is not in "out.add_(0)")
  const holdsCode = (text, typed) => {
    const word = /[a-z0-9_]/;
    for (let i = text.indexOf(typed); i >= 0; i = text.indexOf(typed, i + 1)) {
      const end = i + typed.length;
      const before = i === 0 || !word.test(text[i - 1]) || !word.test(typed[0]);
      const after = end === text.length || !word.test(text[end]) || !word.test(typed.at(-1));
      if (before && after) return true;
    }
    return false;
  };
  // the words of a message as search.py's message_words reads them; a run of Chinese
  // characters is a word no message has
  const messageWords = (text) =>
    (text.toLowerCase().match(/[a-z0-9_]+|\p{Script=Han}+/gu) || []).map((w) =>
      /^\d+$/.test(w) ? "#" : /^[a-z0-9_]+$/.test(w) ? w : "\u0000",
    );
  // the longest run of words that two lists have in common, in order
  const longestRun = (a, b) => {
    let best = 0;
    let end = 0;
    let previous = new Array(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
      const row = new Array(b.length + 1).fill(0);
      for (let j = 1; j <= b.length; j++)
        if (a[i - 1] === b[j - 1] && a[i - 1] !== "\u0000") {
          row[j] = previous[j - 1] + 1;
          if (row[j] > best) [best, end] = [row[j], i];
        }
      previous = row;
    }
    return a.slice(end - best, end);
  };

  let prepared = null;
  const prepare = () => {
    if (prepared && prepared.index === Search._index) return prepared;
    const index = Search._index;
    const stemmer = new Stemmer();
    // a word as the index holds it: English stemmed, the rest as written
    const key = (w) => {
      const lower = w.toLowerCase();
      return /^[a-z]/.test(lower) ? stemmer.stemWord(lower) : lower;
    };
    const tokens = (text) => splitQuery(text).map(key);
    const phrase = (text) => tokens(text).join(" ");
    const functionWords = new Set(all(WORDS.function).map(phrase));
    const comparisonWords = new Set(all(WORDS.comparison).map(phrase));
    const negations = new Set(all(WORDS.negation).map(phrase));
    const allGroups = [...WORDS.synonyms, ...WORDS.qualifiers];
    const qualifying = allGroups.map((_, n) => n >= WORDS.synonyms.length);
    const groups = new Map(); // phrase -> [group number]
    allGroups.forEach((group, n) =>
      group.map(phrase).forEach((p) => {
        if (!groups.has(p)) groups.set(p, []);
        if (!groups.get(p).includes(n)) groups.get(p).push(n);
      }),
    );
    const groupPhrases = allGroups.map((group) => [...new Set(group.map(phrase))]);
    // the index's name of a negated phrase of the lists, as search.py's Negations names
    // it: "not" and the stems of the words negated ("without any error": "not error"),
    // or 不 and the Chinese word negated (没有报错: 不报错)
    const negationWords = new Set(all(WORDS.negation).map((w) => w.toLowerCase()));
    const chineseNegations = all(WORDS.negation)
      .filter((w) => /\p{Script=Han}/u.test(w))
      .sort((a, b) => b.length - a.length);
    const negatedName = (text) => {
      const lower = text.toLowerCase().trim();
      if (/^\p{Script=Han}{2,}$/u.test(lower)) {
        const neg = chineseNegations.find((n) => lower.startsWith(n));
        if (!neg) return null;
        let rest = lower.slice(neg.length);
        for (const filler of ["任何", "什么", "一点", "再"])
          if (rest.startsWith(filler)) rest = rest.slice(filler.length);
        return rest.length >= 2 ? "不" + rest : null;
      }
      const words = lower.match(/[a-z0-9_]+/g) || [];
      for (let i = 0; i < words.length; i++) {
        if (negationWords.has(words[i]) || (words[i] === "t" && i > 0 && /n$/.test(words[i - 1]))) {
          const rest = words.slice(i + 1).filter((w) => !stopwords.has(w));
          if (!rest.length || rest.length > 2) return null;
          return "not " + rest.map((w) => stemmer.stemWord(w)).join(" ");
        }
      }
      return null;
    };
    const negated = new Map(); // phrase -> its negated name
    for (const group of allGroups)
      for (const text of group) {
        const name = negatedName(text);
        if (name) negated.set(phrase(text), name);
      }
    const longest = Math.max(
      1,
      ...[...functionWords, ...comparisonWords, ...negations, ...groups.keys()].map(
        (p) => p.split(" ").length,
      ),
    );
    // the stop words as the index holds them: stemmed, as a query's words are here
    // ("only": "onli"); Sphinx's query parser drops them before stemming
    const stopped = new Set([...stopwords, ...[...stopwords].map(key)]);
    // words that never say what a page is about (a letter alone: "what's", "x.detach()")
    const silent = (w) =>
      functionWords.has(w) || stopped.has(w) || /^\d+$/.test(w) || /^[a-z]$/.test(w);
    const titleWords = index.titles.map((t) => new Set(tokens(t)));
    const headings = []; // [file, anchor, Set(words), text]
    for (const [text, places] of Object.entries(index.alltitles)) {
      const set = new Set(tokens(text));
      for (const [file, anchor] of places) headings.push([file, anchor || "", set, text]);
    }
    const entries = []; // [file, anchor, Set(words)]
    for (const [text, places] of Object.entries(index.indexentries || {})) {
      const set = new Set(tokens(text));
      for (const [file, anchor] of places) entries.push([file, anchor, set]);
    }
    // the names each section's code mentions, with its heading's and its page title's words
    const code = index.gradcut_sections || { names: [], sections: [] };
    // the APIs: names the prose writes as inline code somewhere
    const names = new Set(
      code.sections.flatMap(([, , , inline]) => (inline || []).map((n) => code.names[n])),
    );
    // file -> Map(anchor -> {words: Set(what it names, its heading and the page title say),
    // prose: Set(the same, of its code only what its prose writes as code),
    // own: Set(what its own heading says)})
    const sections = new Map();
    const section = (file, anchor) => {
      if (!sections.has(file)) sections.set(file, new Map());
      const found = sections.get(file);
      if (!found.has(anchor))
        found.set(anchor, {
          words: new Set(titleWords[file]),
          prose: new Set(titleWords[file]),
          own: new Set(),
        });
      return found.get(anchor);
    };
    for (const [file, anchor, found, inline] of code.sections) {
      const here = section(file, anchor || "");
      found.forEach((n) => here.words.add(code.names[n]));
      (inline || []).forEach((n) => here.prose.add(code.names[n]));
    }
    for (const [file, anchor, set] of headings)
      set.forEach((w) => {
        section(file, anchor).words.add(w);
        section(file, anchor).prose.add(w);
        if (anchor) section(file, anchor).own.add(w);
      });
    for (const [file, anchor, set] of entries)
      set.forEach((w) => {
        section(file, anchor || "").words.add(w);
        section(file, anchor || "").prose.add(w);
      });
    // the code each section writes inline (search.py's code_text), and each heading's
    const written = []; // [file, anchor, [code]]
    for (const [file, anchor, , , at] of code.sections)
      if (at && at.length) written.push([file, anchor || "", at.map((n) => code.code[n])]);
    const headingCode = headings.map(([file, anchor, , text]) => [file, anchor, codeText(text)]);
    // an index of messages (search.py's messages): [[the message's words, as the index
    // quotes it and as pages quote it], [[file, anchor], ...]]
    const messages = (index.gradcut_messages || []).map(([texts, targets]) => [
      texts.map((t) => t.split(" ")),
      targets,
    ]);
    const files = (table, word) => {
      if (!has(table, word)) return [];
      const found = table[word];
      return found.length === undefined ? [found] : found;
    };
    prepared = {
      index, tokens, silent, functionWords, comparisonWords, negations, groups,
      groupPhrases, qualifying, negated, longest, titleWords, headings, entries, names, sections,
      files, written, headingCode, messages,
      termKeys: Object.keys(index.terms),
    };
    return prepared;
  };

  // The query as concepts: [{typed, variants: Map(phrase -> factor), qualifier, api}]
  const readQuery = (query, p) => {
    const words = p.tokens(query);
    // names typed as code: ".data", "detach()", "no_grad", "param.data", "retain_graph=True"
    const code = new Set(
      query
        .split(/\s+/)
        .filter((chunk) => /[A-Za-z0-9]_|_[A-Za-z]|[.([=][A-Za-z_]|[A-Za-z0-9_][.([=]/.test(chunk))
        .flatMap((chunk) => p.tokens(chunk))
        .filter((w) => /^[a-z_]/.test(w)),
    );
    const items = [];
    for (let i = 0; i < words.length; ) {
      let n = Math.min(p.longest, words.length - i);
      let kind = null;
      let said = null;
      for (; n > 0; n--) {
        said = words.slice(i, i + n).join(" ");
        if (p.comparisonWords.has(said)) kind = "comparison";
        else if (p.groups.has(said)) kind = "word";
        else if (p.negations.has(said)) kind = "negation";
        else if (p.functionWords.has(said)) kind = "function";
        if (kind) break;
      }
      if (!kind) [n, said] = [1, words[i]];
      // "isn't", "doesn't": splitQuery leaves "isn" "t"
      if (!kind && said === "t" && i > 0 && /n$/.test(words[i - 1])) kind = "negation";
      if (!kind) kind = p.silent(said) ? "function" : "word";
      items.push({ kind, said });
      i += n;
    }
    const concepts = [];
    let comparison = false;
    let negated = null;
    for (const { kind, said } of items) {
      if (kind === "function") continue;
      if (kind === "negation") {
        negated = said;
        continue;
      }
      if (kind === "comparison") {
        comparison = true;
        negated = null;
        continue;
      }
      let typed = said;
      if (negated !== null) {
        // the negation as one phrase of the lists: "not safe", "不安全"
        const han = /\p{Script=Han}/u.test(said);
        const tries = han ? [negated + said, "不" + said, "没有" + said] : [`not ${said}`];
        typed = tries.find((t) => p.groups.has(t)) || said;
        negated = null;
      }
      const variants = new Map([[typed, 1]]);
      const mine = p.groups.get(typed) || [];
      for (const g of mine)
        for (const other of p.groupPhrases[g])
          if (!variants.has(other)) variants.set(other, SYNONYM);
      const qualifier = mine.some((g) => p.qualifying[g]);
      // an API: a name the prose writes as code, typed as code or not one English word
      // among others of the lists ("detach", "分离"; not "weights", a word for parameters)
      const english = mine.flatMap((g) => p.groupPhrases[g]).filter((w) => /^[a-z_]/.test(w));
      const api =
        !qualifier &&
        !typed.includes(" ") &&
        p.names.has(typed) &&
        (code.has(typed) || english.every((w) => w === typed));
      concepts.push({ typed, variants, qualifier, api, comparison: false });
    }
    // code typed as code ("x[:, 0] = f(x[:, 0])", "t[0:2] += 1", "detach().cpu()"): a run
    // of pieces of code (brackets, calls, attributes, names with "_", operators, numbers),
    // found where a section writes it. It weighs as a qualifier does, and does not decide
    // whether a page holds the query: its names do (pages write "x.data" for "t.data")
    const codeish = (piece) =>
      /[[\]()=]|[a-z0-9_]\.[a-z_]|^\.[a-z_]|[a-z0-9]_|_[a-z]/i.test(piece) ||
      /^[-+*/%<>!=&|^]+$/.test(piece) ||
      /^\d+$/.test(piece);
    let run = [];
    const typedCode = () => {
      const text = codeText(run.join(" ")).replace(/[?!,;:.]+$/, "");
      if (isCode(text))
        concepts.push({
          typed: text,
          variants: new Map([[text, 1]]),
          qualifier: true,
          api: false,
          comparison: false,
          code: true,
        });
      run = [];
    };
    for (const piece of query.replace(/\p{Script=Han}+/gu, " \u0000 ").split(/\s+/))
      if (piece && piece !== "\u0000" && codeish(piece)) run.push(piece);
      else typedCode();
    typedCode();
    if (comparison) {
      const variants = new Map([...p.comparisonWords].map((w) => [w, 1]));
      concepts.push({ typed: "", variants, qualifier: true, api: false, comparison: true });
    }
    // the same concept typed twice ("copy" and "duplicate") counts once
    const seen = new Set();
    return concepts.filter((c) => {
      const id = [...c.variants.keys()].sort().join("|");
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  };

  const performSearch = (query, searchTerms, excludedTerms) => {
    const p = prepare();
    const { index, titleWords, headings, entries, files } = p;
    const pages = index.docnames.length;
    const concepts = readQuery(query, p);
    // where a page has a word: the best place counts
    const places = (word) => {
      const found = new Map();
      const note = (f, w) => found.set(f, Math.max(found.get(f) || 0, w));
      files(index.terms, word).forEach((f) => note(f, WEIGHT.text));
      files(index.titleterms, word).forEach((f) =>
        note(f, titleWords[f].has(word) ? WEIGHT.title : WEIGHT.heading),
      );
      for (const [f, , set] of entries) if (set.has(word)) note(f, WEIGHT.index);
      return found;
    };
    // a phrase: the pages that have each of its words, at the weakest of their places;
    // a negated phrase ("without any error", 没有报错): the pages that say it in any of
    // its forms, under its negated name (search.py's Negations); never the pages that
    // have its words, which say the opposite as often
    const phrasePlaces = (phrase) => {
      if (p.negated.has(phrase)) return places(p.negated.get(phrase));
      const all = phrase.split(" ");
      if (all.some((w) => p.negations.has(w) || w === "t")) return new Map();
      const words = all.filter((w) => !p.silent(w));
      if (!words.length) return new Map();
      let found = places(words[0]);
      for (const w of words.slice(1)) {
        const more = places(w);
        found = new Map(
          [...found].filter(([f]) => more.has(f)).map(([f, v]) => [f, Math.min(v, more.get(f))]),
        );
      }
      return found;
    };
    const weights = new Map(); // file -> Map(concept -> weight)
    const idf = new Map();
    const note = (file, concept, weight) => {
      if (!weights.has(file)) weights.set(file, new Map());
      const w = weights.get(file);
      if ((w.get(concept) || 0) < weight) w.set(concept, weight);
    };
    const wordsOf = new Map(); // concept -> Set(the words of its words and phrases)
    const codeAt = new Map(); // file -> [anchor of a section that writes code typed]
    for (const c of concepts) {
      const holders = new Map();
      if (c.code) {
        const hold = (f, anchor, w) => {
          holders.set(f, Math.max(holders.get(f) || 0, w));
          if (anchor) codeAt.set(f, [...(codeAt.get(f) || []), anchor]);
        };
        for (const [f, anchor, texts] of p.written)
          if (texts.some((t) => holdsCode(t, c.typed))) hold(f, anchor, WEIGHT.code);
        for (const [f, anchor, text] of p.headingCode)
          if (holdsCode(text, c.typed)) hold(f, anchor, anchor ? WEIGHT.heading : WEIGHT.title);
        if (!holders.size) continue; // code that no page writes does not count
        idf.set(c, Math.log(1 + pages / holders.size));
        holders.forEach((w, f) => note(f, c, w));
        wordsOf.set(c, new Set(p.tokens(c.typed).filter((w) => !p.silent(w))));
        continue;
      }
      for (const [variant, factor] of c.variants) {
        for (const [f, w] of phrasePlaces(variant))
          holders.set(f, Math.max(holders.get(f) || 0, w * factor));
      }
      if (!holders.size && !c.typed.includes(" ") && c.typed.length > 2 && !c.qualifier) {
        // a word no page holds, inside a longer word: "inplace" in "inplaceabs"
        for (const term of p.termKeys)
          if (term.includes(c.typed))
            files(index.terms, term).forEach((f) => holders.set(f, WEIGHT.partial));
      }
      if (!holders.size) continue; // a word no page holds does not empty the results
      idf.set(c, Math.log(1 + pages / holders.size));
      holders.forEach((w, f) => note(f, c, w));
      // the words it says: of its words and phrases, not of a negated phrase
      const said = [...c.variants.keys()].filter(
        (v) => !p.negated.has(v) && !v.split(" ").some((w) => p.negations.has(w)),
      );
      wordsOf.set(c, new Set(said.flatMap((v) => v.split(" ")).filter((w) => !p.silent(w))));
    }
    // a message pasted from a traceback or a warning: the pages and sections that an index
    // of messages (the troubleshooting index) names for it hold the query's words that the
    // message says as a heading that says just them would
    const pasted = new Map(); // file -> anchor
    const typed = messageWords(query);
    let longestPaste = 0;
    let matched = [];
    for (const [texts, targets] of p.messages) {
      let here = [];
      for (const text of texts) {
        const run = longestRun(typed, text);
        if (run.length > here.length) here = run;
      }
      const says = here.filter((w) => w !== "#" && !stopwords.has(w));
      if (here.length < MESSAGE_RUN || says.length < MESSAGE_SAYS) continue;
      if (here.length > longestPaste) [longestPaste, matched] = [here.length, []];
      if (here.length === longestPaste) matched.push([here, targets]);
    }
    for (const [run, targets] of matched) {
      const said = new Set(p.tokens(run.join(" ")));
      for (const [file, anchor] of targets) {
        if (!pasted.has(file) || anchor) pasted.set(file, anchor);
        for (const c of concepts)
          if (idf.has(c) && [...wordsOf.get(c)].some((w) => said.has(w)))
            note(file, c, WEIGHT.exact);
      }
    }
    const counted = concepts.filter((c) => idf.has(c));
    const compare = counted.find((c) => c.comparison);
    const covered = (word) => counted.some((c) => wordsOf.get(c).has(word));
    // a heading that says nothing but words of the query: a section on just that
    for (const [file, , set] of headings) {
      const said = [...set].filter((w) => !p.silent(w));
      if (!said.length || !said.every(covered)) continue;
      for (const c of counted)
        if (c !== compare && said.some((w) => wordsOf.get(c).has(w))) note(file, c, WEIGHT.exact);
    }
    const excluded = new Set();
    for (const word of excludedTerms) {
      files(index.terms, word).forEach((f) => excluded.add(f));
      files(index.titleterms, word).forEach((f) => excluded.add(f));
    }
    // a query of qualifiers alone ("区别") is held by the pages that have them
    const required = counted.some((c) => !c.qualifier) ? (c) => !c.qualifier : () => true;
    const content = counted.filter(required);
    const apis = content.filter((c) => c.api);
    const total = content.reduce((a, c) => a + idf.get(c), 0);
    const apiTotal = apis.reduce((a, c) => a + idf.get(c), 0);
    const typedCode = counted.filter((c) => c.code && /[[\]=+\-*/<>]/.test(c.typed));
    const codeTotal = typedCode.reduce((a, c) => a + idf.get(c), 0);
    // the share of the query's APIs, or of all its words, that one section names
    const names = (set, c) =>
      [...c.variants.keys()].some((v) => {
        const words = v.split(" ").filter((w) => !p.silent(w));
        const negation = v.split(" ").some((w) => p.negations.has(w));
        return words.length && !negation && words.every((w) => set.has(w));
      });
    const named = (set, list) =>
      list.filter((c) => names(set, c)).reduce((a, c) => a + idf.get(c), 0);
    // what the query compares: its APIs, or else its other words
    const compared = apis.length ? apis : content.filter((c) => c !== compare);
    const scored = [];
    for (const [file, found] of weights) {
      if (excluded.has(file)) continue;
      // the comparison weighs as a title where a section compares what the query
      // compares: its own heading compares, and it names them (as code in its prose, in
      // its heading or its page's title: not only in the code of its examples, which a
      // heading such as "the same gradients" does not compare), or the page's title
      // compares and names them; elsewhere as a word of the text
      if (compare && found.has(compare)) {
        const title = titleWords[file];
        let weight = WEIGHT.text;
        if (names(title, compare) && compared.every((c) => names(title, c))) weight = WEIGHT.title;
        for (const [, { prose, own }] of p.sections.get(file) || [])
          if (names(own, compare) && compared.every((c) => names(prose, c))) weight = WEIGHT.title;
        found.set(compare, weight);
      }
      let score = 0;
      let covering = 0;
      for (const [c, weight] of found) {
        score += idf.get(c) * weight;
        if (required(c)) covering += idf.get(c) * Math.min(weight, 1);
      }
      // a statement typed (an index, an operator, an assignment: not a call by name, which
      // many pages write) that a section writes holds the query as its words do: for a
      // page that writes it, the share counts it with the words ("why does t[0:2] += 1
      // increase _version by 2": the page that writes t[0:2] += 1, not those that say
      // "increase")
      let coverage = total ? covering / total : 0;
      const code = typedCode.filter((c) => found.has(c));
      if (code.length) {
        const held = code.reduce((a, c) => a + idf.get(c) * Math.min(found.get(c), 1), 0);
        coverage = Math.max(coverage, (covering + held) / (total + codeTotal));
      }
      // the section that names most of the query's APIs, then most of its words
      let best = { anchor: "", apis: 0, words: 0 };
      for (const [anchor, { words }] of p.sections.get(file) || []) {
        const here = { anchor, apis: named(words, apis), words: named(words, counted) };
        if (here.apis > best.apis || (here.apis === best.apis && here.words > best.words))
          best = here;
      }
      const share = apis.length > 1 && apiTotal ? best.apis / apiTotal : 1;
      score *= coverage * coverage * (SECTION_FLOOR + (1 - SECTION_FLOOR) * share);
      // the link: the section that the index of messages names, or that writes the code
      // typed, or else the best section
      const anchor = pasted.get(file) || (codeAt.get(file) || [])[0] || best.anchor;
      scored.push({ file, coverage, score, anchor });
    }
    const top = Math.max(0, ...scored.map((s) => s.coverage));
    const results = [];
    for (const { file, coverage, score, anchor } of scored) {
      if (coverage < top * MIN_COVERAGE) continue;
      const heading = anchor ? headings.find(([f, a]) => f === file && a === anchor) : null;
      const title = index.titles[file];
      results.push([
        index.docnames[file],
        heading && heading[3] !== title ? `${title} > ${heading[3]}` : title,
        anchor ? "#" + anchor : "",
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

  // Opened from the disk, the browser refuses the requests for each result's page that
  // its summary needs (a page may not fetch file:// addresses): the results go without.
  const fromFiles = typeof location !== "undefined" && location.protocol === "file:";
  if (fromFiles && typeof DOCUMENTATION_OPTIONS !== "undefined")
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
})();
