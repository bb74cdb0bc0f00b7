"""Builds sample_docs/gold_ja_realdata.jsonl: the team's Japanese gold set over ../shared/realdata/pdfs/ja/.

Written by hand from each page's own text (PyMuPDF `page.get_text()`); every quote is checked here
against that text (after NFKC, whitespace removed), so a quote is always the page's exact words.
Evidence names page and quote only: ids depend on the engine, so `evaluate` anchors each quote
against the corrected Document of whatever engine ingested the file.

Copies (one rule, applied by code to every item, never chosen per question): when the exact quote
(compared as above) is also printed on other pages of these PDFs, every such page is recorded as a
copy of the evidence (`copies: [{doc_id, source, page}]`); a retrieved chunk from a copy hands up the
same words, so it counts as finding the evidence. The two AI guideline PDFs repeat each other (the
概要 deck quotes the 本編 word for word). Quotes shorter than MIN_COPY_CHARS get no copies: a few
characters are printed in many places by chance (the same floor as scoring.MIN_PART_CHARS).

Split (fixed before anything was measured): the number at the end of an id decides the half:
odd = "tune" (policy defaults may be chosen on it), even = "holdout" (only ever reported).
Numbers run per kind, so each kind is split about evenly. The second tuning set
(scripts/gold_ja_realdata_tune2.py, ids rj2-<kind>-NN, written when the first tuning half saturated) is
tuning data only: tags [kind, "tune", "tune2"], whatever its numbers. The second hold-out set
(scripts/gold_ja_realdata_holdout2.py, ids rj3-<kind>-NN, written fresh at stop 28 because the first
hold-out half had been read several times while rules changed) is hold-out data only: tags
[kind, "holdout", "holdout2"], whatever its numbers; nobody tunes on it. The third hold-out set
(scripts/gold_ja_realdata_holdout3.py, ids rj4-<kind>-NN, written fresh because the second is spent once its
figures are read) is hold-out data only as well: tags [kind, "holdout", "holdout3"]; so is the fourth
(scripts/gold_ja_realdata_holdout4.py, ids rj5-<kind>-NN, written fresh when the third was spent): tags
[kind, "holdout", "holdout4"]; so is the fifth (scripts/gold_ja_realdata_holdout5.py, ids rj6-<kind>-NN,
written fresh when the fourth was spent): tags [kind, "holdout", "holdout5"]; so is the sixth
(scripts/gold_ja_realdata_holdout6.py, ids rj7-<kind>-NN, written fresh when the fifth was spent): tags
[kind, "holdout", "holdout6"]; so is the seventh (scripts/gold_ja_realdata_holdout7.py, ids rj8-<kind>-NN,
written fresh to be read once the sixth is spent): tags [kind, "holdout", "holdout7"]; so is the eighth
(scripts/gold_ja_realdata_holdout8.py, ids rj9-<kind>-NN, written fresh when the seventh was spent): tags
[kind, "holdout", "holdout8"]; and so is the ninth (scripts/gold_ja_realdata_holdout9.py, ids rj10-<kind>-NN,
written fresh when the eighth was spent): tags [kind, "holdout", "holdout9"].

    python3 scripts/gold_ja_realdata.py [--check]      # --check: verify only, write nothing
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALDATA = Path(os.environ.get("RLI_REALDATA") or ROOT.parent / "shared" / "realdata") / "pdfs" / "ja"
OUT = ROOT / "sample_docs" / "gold_ja_realdata.jsonl"
KINDS = ("body", "table", "figure", "footnote", "list")
MIN_COPY_CHARS = 8

FILES = {
    "WP": "yomitoku_demo_sample_R6_joho_tsushin_hakusho_excerpt.pdf",
    "HON": "ai_jigyosha_guideline_honpen_siryo1.pdf",
    "GAI": "ai_jigyosha_guideline_gaiyou_siryo2.pdf",
    "KES": "kyokuyo_kessan_tanshin_H26_p15_twotables.pdf",
    "MIY": "miyazawa_haru_to_shura_jo_dvipdfmx.pdf",
}

# (kind, file, page, question, quote, answer)
QUESTIONS = [
    # ---- body text
    ("body", "WP", 1, "生成AIが事実に基づかない誤った情報をもっともらしく生成することを何と呼ぶか。",
     "生成AIは事実に基づかない誤った情報をもっともらしく生成することがあり、これをハルシネーション（幻覚）と呼ぶ。", "ハルシネーション（幻覚）"),
    ("body", "WP", 2, "日本語に強いLLMの利活用のためにはどのようなLLM構築が必要とされているか。",
     "構築の過程や用いるデータが明らかな、透明性の高い安心して利活用できる国産のLLM構築が必要となる", "過程やデータが明らかで透明性の高い国産LLM"),
    ("body", "WP", 3, "NICTが2023年7月に発表した大規模言語モデルは何パラメータで、どんなデータで学習したか。",
     "ノイズに相当するテキストが少ない350GBの高品質な独自の日本語Webテキストを用いて、400億パラメータの生成系の大規模言語モデルを開発した", "350GBの日本語Webテキストで400億パラメータ"),
    ("body", "WP", 4, "CyberAgentLM2-7Bは何パラメータで何トークンに対応しているか。",
     "より高性能な70億パラメータ、32,000トークン対応の日本語LLM", "70億パラメータ、32,000トークン"),
    ("body", "WP", 4, "NTTのtsuzumiのパラメータサイズはどのくらいか。",
     "「tsuzumi」のパラメータサイズは6～70億と軽量であり", "6～70億"),
    ("body", "WP", 4, "「ディープフェイク」という言葉は何を組み合わせた造語か。",
     "「ディープラーニング（深層学習）」と「フェイク（偽物）」を組み合わせた造語", "ディープラーニングとフェイク"),
    ("body", "WP", 5, "世界経済フォーラムは今後2年間で最も深刻なリスクとして何を挙げたか。",
     "今後2年間で予想される最も深刻なリスクとして「偽情報」を挙げた", "偽情報"),
    ("body", "WP", 6, "ChatGPT公開後の12か月間でフィッシング詐欺メールはどれだけ増えたとされるか。",
     "フィッシング詐欺メールは1,265％増加し", "1,265％"),
    ("body", "WP", 6, "DSAに違反した企業にはどの程度の制裁金が科されるか。",
     "違反企業には最大で世界年間売上高の6％の制裁金が科されることとなっている", "世界年間売上高の最大6％"),
    ("body", "WP", 7, "英国のオンライン安全法では虚偽情報の送信にどのような刑が定められているか。",
     "6か月の禁錮刑を科す内容が含まれている", "6か月の禁錮刑（加害意図等で最高懲役2年）"),
    ("body", "WP", 8, "ニュース記事や広告に発信者情報を紐付ける技術は何か。",
     "発信者情報を紐付けるオリジネータープロファイル（OP、Originator Profile）技術", "オリジネータープロファイル（OP）"),
    ("body", "WP", 9, "生成AIの生成物は主にどの3種類か。",
     "生成AIの生成物は、主に、文章、画像、音楽・音声の3種類である。", "文章、画像、音楽・音声"),
    ("body", "WP", 10, "MicrosoftがCopilot Copyright Commitmentを発表したのはいつか。",
     "「Copilot Copyright Commitment」を2023年9月に発表している", "2023年9月"),
    ("body", "WP", 10, "Adobe Fireflyで生成した画像は商用利用できるか。",
     "著作権侵害の心配なく生成した画像の商用利用が可能としている", "可能としている"),
    ("body", "HON", 3, "「人間中心のAI社会原則」が策定されたのはいつか。",
     "2019 年3 月に「人間中心のAI 社会原則」が策定された", "2019年3月"),
    ("body", "HON", 9, "AIという言葉が初めて使われたのはいつ、どこでか。",
     "1956 年にダートマス会議で初めて使用された言葉", "1956年のダートマス会議"),
    ("body", "HON", 25, "AIガバナンスの構築で実践が重要とされるガバナンスは何か。",
     "「アジャイル・ガバナンス」の実践が重要となる", "アジャイル・ガバナンス"),
    ("body", "HON", 17, "セキュリティ確保として各主体は何を避けるべきとされているか。",
     "不正操作によってAI の振る舞いに意図せぬ変更又は停止が生じることのないように、セキュリティを確保することが重要である", "不正操作による意図せぬ変更又は停止"),
    ("body", "HON", 6, "AI利用者はどのような役割を担うか。",
     "AI 提供者が意図している適正な利用を行い、環境変化等の情報をAI 提供者と共有し正常稼働を継続すること", "適正な利用と情報共有による正常稼働の継続"),
    ("body", "GAI", 2, "「AI事業者ガイドライン」は何の統一的な指針を示すことを目指しているか。",
     "我が国におけるAIガバナンスの統一的な指針を示すことで", "AIガバナンス"),
    ("body", "GAI", 3, "「AI事業者ガイドライン」は何を土台として策定されるか。",
     "「人間中心のAI社会原則」を土台としつつ、我が国における3つのガイドラインを統合し", "人間中心のAI社会原則（3つのガイドラインを統合）"),
    ("body", "GAI", 17, "AI開発者にとって事前の検討が特に重要とされる理由は何か。",
     "AI開発者は、AIモデルを直接的に設計・変更ができるため", "AIモデルを直接設計・変更できるため"),
    ("body", "MIY", 1, "『春と修羅』序で、わたくしといふ現象は何だとされているか。",
     "わたくしといふ現象は假定された有機交流電燈のひとつの青い照明です", "假定された有機交流電燈のひとつの青い照明"),
    ("body", "MIY", 1, "『春と修羅』序で、これらは何箇月の過去とかんずる方角から来たとされるか。",
     "これらは二十二箇月の過去とかんずる方角から紙と鑛質インクをつらね", "二十二箇月"),
    ("body", "MIY", 1, "『春と修羅』序で、二千年ぐらゐ前には青ぞらに何が居たとおもふとされているか。",
     "みんなは二千年ぐらゐ前には青ぞらいっぱいの無色な孔雀が居たとおもひ", "無色な孔雀"),
    ("body", "MIY", 1, "『春と修羅』序の日付はいつか。", "大正十三年一月", "大正十三年一月"),
    # ---- tables (cells and rows)
    ("table", "KES", 1, "極洋の前連結会計年度の当期首残高（資本金・資本剰余金・利益剰余金・自己株式・株主資本合計）はいくらか。",
     "当期首残高 5,664 749 12,017 △747 17,683", "5,664 / 749 / 12,017 / △747 / 17,683 百万円"),
    ("table", "KES", 1, "株主資本合計の当期末残高はいくらか。",
     "当期末残高 5,664 749 12,846 △747 18,512", "18,512百万円"),
    ("table", "KES", 1, "利益剰余金の当期変動額合計はいくらか。",
     "当期変動額合計 ― ― 829 △0 829", "829百万円"),
    ("table", "KES", 1, "純資産合計の当期末残高はいくらか。",
     "当期末残高 △113 142 △104 ― △75 245 18,683", "18,683百万円"),
    ("table", "KES", 1, "その他有価証券評価差額金の当期首残高はいくらか。",
     "当期首残高 △669 61 △109 ― △717 246 17,212", "△669百万円"),
    ("table", "KES", 1, "株主資本以外の項目の当期変動額（純額）で、その他の包括利益累計額合計はいくらか。",
     "の当期変動額（純額) 556 80 5 ― 642 △0 642", "642百万円"),
    ("table", "KES", 1, "持分法の適用範囲の変動による利益剰余金の増加はいくらか。",
     "持分法の適用範囲 の変動 85 85", "85百万円"),
    ("table", "WP", 2, "「多様性の喪失」のリスクの事例として何が挙げられているか。",
     "社会全体が同じモデルを、同じ温度感で使った場合、導かれる意見及び回答がLLMによって収束してしまい、多様性が失われる可能性がある", "同じモデルの利用で意見が収束し多様性が失われる"),
    ("table", "WP", 2, "ハルシネーションに関してどのような事例が起きているか。",
     "「ハルシネーション」に関してはAI開発者・提供者への訴訟も起きている", "AI開発者・提供者への訴訟"),
    ("table", "WP", 2, "「バイアスのある結果及び差別的な結果の出力」の事例は何か。",
     "IT企業が自社で開発したAI人材採用システムが女性を差別するという機械学習面の欠陥を持ち合わせていた", "AI人材採用システムが女性を差別した"),
    ("table", "WP", 2, "「資格等との関係」のリスクとは何か。",
     "生成AIの活用を通じた業法免許や資格等の侵害リスクも考えうる", "業法免許や資格等の侵害リスク"),
    ("table", "WP", 2, "データ汚染攻撃の事例にはどのようなものがあるか。",
     "学習データへの不正データ混入", "学習データへの不正データ混入やサイバー攻撃"),
    ("table", "WP", 6, "2022年3月のウクライナでのディープフェイクの事例は何か。",
     "ゼレンスキー大統領がウクライナ軍に降伏を呼びかける偽動画", "ゼレンスキー大統領の降伏呼びかけ偽動画"),
    ("table", "WP", 6, "国防総省の近くでの爆発の偽画像でダウ平均株価はどうなったか。",
     "ダウ平均株価が一時100ドル以上も下落した", "一時100ドル以上下落"),
    ("table", "WP", 6, "2022年9月の台風15号の際にどんな偽画像が拡散したか。",
     "大型の台風15号が上陸した際に、静岡県で多くの住宅が水没したとする偽画像", "静岡県で住宅が水没したとする偽画像"),
    ("table", "WP", 6, "2024年1月の台湾総統選でどんな偽動画が作られたか。",
     "蔡英文総統の私生活について虚偽の主張をしている偽動画", "蔡英文総統の私生活に関する偽動画"),
    ("table", "WP", 6, "2021年2月の地震の際にどんな偽画像が出回ったか。",
     "加藤勝信官房長官の顔画像が、笑みを浮かべているように改竄された偽画像", "加藤官房長官が笑みを浮かべたように改竄された画像"),
    ("table", "HON", 22, "表1で、AI利用者に公平性について重要となる事項は何か。",
     "i. 入力データ又はプロンプトに含まれるバイアスへの配慮", "入力データ又はプロンプトに含まれるバイアスへの配慮"),
    ("table", "HON", 22, "表1で、AI提供者にアカウンタビリティについて重要となる事項は何か。",
     "i. AI 利用者への「共通の指針」の対応状況の説明", "AI利用者への「共通の指針」の対応状況の説明"),
    ("table", "HON", 22, "表1で、AI開発者に透明性について重要となる事項は何か。",
     "i. 検証可能性の確保 ii. 関連するステークホルダーへの 情報提供", "検証可能性の確保、関連するステークホルダーへの情報提供"),
    ("table", "HON", 22, "表1で、共通の指針「人間中心」の⑥は何か。", "⑥ 持続可能性の確保", "持続可能性の確保"),
    # ---- figures (text inside figures and diagrams, and their captions)
    ("figure", "WP", 3, "各モデルのパラメータ数の図の出典は何か。",
     "（出典）企業HP、ニュース記事などの情報を基に作成", "企業HP、ニュース記事など"),
    ("figure", "WP", 3, "パラメータ数の図で、開発予定とされているのはどこか。", "Preferred Elements （開発予定）", "Preferred Elements、ソフトバンク"),
    ("figure", "WP", 3, "パラメータ数の図に載っている東京大学松尾研究室のモデルは何か。", "東京大学松尾研究室 「Weblab-10B」", "Weblab-10B"),
    ("figure", "WP", 9, "SYNTHETIQ VISIONの図の出典はどこか。",
     "（出典）国立情報学研究所 シンセティックメディア国際研究センター", "国立情報学研究所 シンセティックメディア国際研究センター"),
    ("figure", "GAI", 7, "AI開発者のデータ収集の工程では何を行うか。", "学習用の データを 収集する", "学習用のデータを収集する"),
    ("figure", "GAI", 7, "データ提供者は本ガイドラインの対象か。", "データ提供者は本ガイドラインの対象には含まれない", "含まれない"),
    ("figure", "GAI", 7, "業務外利用者とはどのような者か。",
     "AIを直接事業 で利用せずに AIシステム・サー ビスの便益を 享受する", "AIを直接事業で利用せずに便益を享受する者"),
    ("figure", "GAI", 5, "ガイドライン策定で何名程度の有識者に意見照会したか。", "100名程度の有識者", "100名程度"),
    ("figure", "GAI", 3, "AI開発ガイドラインは何を取りまとめたものか。",
     "AIシステムの開発において留意するAI開発原則及び その内容の解説を取りまとめ", "AI開発原則とその解説"),
    ("figure", "GAI", 12, "共通の指針の9番目の項目は何か。", "9) 公正競争 確保", "公正競争確保"),
    ("figure", "GAI", 12, "共通の指針の共通要素の抽出元に挙がっている米国の文書は何か。", "AI RMF 1.0 AI権利章典の青写真", "AI RMF 1.0、AI権利章典の青写真"),
    ("figure", "GAI", 9, "別添の7は何か。", "7. チェックリスト", "チェックリスト"),
    ("figure", "GAI", 9, "別添の8は何か。", "8. 主体横断的な仮想事例", "主体横断的な仮想事例"),
    ("figure", "GAI", 19, "AI提供者はシステムアーキテクチャについて何をするか。",
     "AIシステムの意思決定に影響を与えるシステムアーキテクチャ、データの処理 プロセス等について文書化する", "文書化する"),
    ("figure", "GAI", 20, "AI提供者のサービス規約等の文書化では何をするか。",
     "AI利用者に向けたサービス規約を作成するともにプライバシーポリシーを明示 する", "サービス規約の作成とプライバシーポリシーの明示"),
    ("figure", "GAI", 13, "共通の指針「人間中心」で各主体はどう行動するとされているか。",
     "AI が人々の能力を拡張し、多様な人々の多様な幸せ（well-being）の追求が可能となるように行動する", "人々の能力を拡張し多様な幸せの追求が可能となるように"),
    ("figure", "GAI", 6, "AI利活用ガイドラインはいつ、どこが策定したか。", "AI利活用 ガイドライン 2019年8月: 総務省", "2019年8月、総務省"),
    ("figure", "GAI", 6, "人工知能の倫理に関する勧告はいつ、どこが出したか。", "人工知能の 倫理に関する勧告 2021年11月: UNESCO", "2021年11月、UNESCO"),
    ("figure", "GAI", 4, "ガイドラインの基本的な考え方の1つ目は何か。", "事業者の 自主的な 取組の支援", "事業者の自主的な取組の支援"),
    ("figure", "GAI", 11, "基本理念の3つ目の社会は何か。", "持続可能な社会 (Sustainability)", "持続可能な社会"),
    ("figure", "GAI", 21, "AI利用者は機密情報について何に注意するか。",
     "AIシステム・サービスに機密情報等を不適切に入力しないよう注意を払う", "不適切に入力しないよう注意を払う"),
    # ---- footnotes
    ("footnote", "WP", 1, "「エコーチェンバー」とはどのような現象か。",
     "「エコーチェンバー」とは、同じ意見を持つ人々が集まり、自分たちの意見を強化し合うことで", "同じ意見の人々が集まり意見を強化し合い多様な視点に触れられなくなる現象"),
    ("footnote", "WP", 1, "ガイドラインはAIによる環境への貢献としてどのような可能性を指摘しているか。",
     "エネルギー管理にAIを導入することで、効率的な電力利用も可能となる等", "エネルギー管理へのAI導入で効率的な電力利用"),
    ("footnote", "WP", 2, "産総研のプレスリリースは計算資源ABCIを用いて何を開始するとしたか。",
     "産総研の計算資源ABCIを用いて世界トップレベルの生成AIの開発を開始", "世界トップレベルの生成AIの開発"),
    ("footnote", "WP", 3, "OpenAIのGPT4のパラメータ数は公表されているか。", "OpenAI「GPT4」のパラメータ数は非公表。", "非公表"),
    ("footnote", "WP", 3, "NICTが試作した大規模言語モデルはどのデータのみで学習したか。",
     "日本語のWebデータのみで学習した400億パラメータの生成系大規模言語モデルを開発", "日本語のWebデータのみ"),
    ("footnote", "WP", 5, "岸田首相の偽動画はどのような印象を与えるものだったか。",
     "岸田首相の話が緊急速報として生中継されているかのような印象を与えるものだった", "緊急速報として生中継されているかのような印象"),
    ("footnote", "WP", 5, "欧州の5G基地局破壊の影の犯人とされたものは何か。",
     "欧州5G基地局破壊、影の犯人は「コロナ拡散」のデマ", "「コロナ拡散」のデマ"),
    ("footnote", "WP", 6, "DSAが全ての規制対象事業者に適用され始めたのはいつか。",
     "2024年2月から全ての規制対象事業者に対して適用が開始されている", "2024年2月"),
    ("footnote", "WP", 6, "VLOPとはどのようなサービスを指すか。",
     "EU域内での利用者が4,500万人（EU域内人口の10％）以上のサービスを指す", "EU域内の利用者が4,500万人以上のサービス"),
    ("footnote", "WP", 6, "フィッシング攻撃の試算の出典記事の題名は何か。", "「【焦点】生成AI「悪いGPT」の時代へようこそ」", "【焦点】生成AI「悪いGPT」の時代へようこそ"),
    ("footnote", "WP", 7, "2023年7月にバイデン政権に自主的コミットメントをした7社はどこか。",
     "Amazon、Anthropic、Google、Inflection、Meta Platforms、Microsoft、OpenAI", "Amazon、Anthropic、Google、Inflection、Meta Platforms、Microsoft、OpenAI"),
    ("footnote", "WP", 7, "2023年9月に新たに合意した8社はどこか。",
     "Adobe、Cohere、IBM、NVIDIA、Palantir、Salesforce、Scale AI、Stability", "Adobe、Cohere、IBM、NVIDIA、Palantir、Salesforce、Scale AI、Stability"),
    ("footnote", "WP", 7, "IOGAN法の日本語名は何か。", "敵対的生成ネットワークの出力の識別に関する法律", "敵対的生成ネットワークの出力の識別に関する法律"),
    ("footnote", "WP", 8, "OpenAIの判定ツールが生成AI製の文書を正しく判定する確率は何％か。",
     "正しくAIによるものと判定する確率は26％", "26％"),
    ("footnote", "WP", 8, "OpenAIの判定ツールの偽陽性の確率は何％か。", "「偽陽性」の確率も9％あった", "9％"),
    ("footnote", "WP", 9, "GitHub Copilotの訴訟で3社は裁判所に何を求めているか。",
     "著作権侵害は行っていないと主張し、裁判所に対して訴訟の棄却を求めている", "訴訟の棄却"),
    ("footnote", "WP", 8, "オリジネータープロファイルの情報源として示されたURLは何か。", "https://originator-profile.org/ja-JP/", "https://originator-profile.org/ja-JP/"),
    ("footnote", "HON", 6, "業務外利用者はAI利用者の指示に従わない場合どうなる可能性があるか。",
     "業務外利用者は、AI 利用者の指示及び注意に従わない場合、何らかの被害を受ける可能性があることを留意する必要がある", "何らかの被害を受ける可能性がある"),
    ("footnote", "HON", 14, "自動化バイアスとは何を指すか。",
     "人間の判断や意思決定において、自動化されたシステムや技術への過度の信頼や依存が生じる現象を指す", "自動化されたシステムへの過度の信頼や依存"),
    ("footnote", "HON", 28, "AIシステムへの攻撃手法の情報はどこを通じて収集できるか。", "IPA 「AI（Artificial Intelligence）の推進」", "IPA「AI（Artificial Intelligence）の推進」"),
    ("footnote", "GAI", 15, "高度なAIシステムの指針の詳細はどこで採択された声明を参照するか。",
     "G7デジタル・技術大臣会合（2023年12月）で採択された「広島AIプロセスG7デジタル・技術閣僚声明」", "G7デジタル・技術大臣会合（2023年12月）"),
    ("footnote", "HON", 17, "日本がGlobal CBPR Forumに参加したのはいつか。", "日本も2022 年4 月に参加し", "2022年4月"),
    # ---- lists (bullets, numbered and dashed items)
    ("list", "GAI", 2, "日本はどのような提案を先駆けとして国際的な議論をリードしてきたか。",
     "我が国は、G7におけるAI開発原則に向けた提案を先駆けとし", "G7におけるAI開発原則に向けた提案"),
    ("list", "GAI", 2, "我が国でAIの高度な活用への期待が高まっているのは何の実現に向けてか。",
     "我が国においては、Society 5.0の実現に向け、AIの高度な活用に対する期待が高まっている", "Society 5.0"),
    ("list", "GAI", 3, "これまでのガイドラインとの整合性を担保することで何が期待されるか。",
     "これまでのガイドラインとの整合性を担保することで", "連続性がある発展"),
    ("list", "GAI", 5, "ガイドラインはどのような主体で検討を重ねて策定するか。",
     "政府単独ではなく、教育・研究機関、一般消費者を含む市民社会、民間企業等", "政府単独でなく多様なステークホルダー"),
    ("list", "GAI", 12, "「共通の指針」は何を反映しているか。",
     "「共通の指針」は、「人間中心のAI社会原則」を土台としつつ、諸外国における議論状況や", "諸外国の議論状況や新技術に伴うリスクへの対応"),
    ("list", "GAI", 9, "別添の記載内容は本編とどう関係しているか。", "別添の記載内容は本編と対応しており", "本編と対応し解説書の役割"),
    ("list", "GAI", 15, "高度なAIシステムの指針IIは何か。",
     "II. 市場投入を含む導入後、脆弱性、及び必要に応じて悪用されたインシデントやパターンを特定し、緩和する", "導入後の脆弱性や悪用の特定と緩和"),
    ("list", "GAI", 15, "高度なAIシステムの指針Xは何か。", "X. 国際的な技術規格の開発を推進し、適切な場合にはその採用を推進する", "国際的な技術規格の開発と採用の推進"),
    ("list", "GAI", 15, "高度なAIシステムの指針XIは何か。", "XI. 適切なデータインプット対策を実施し、個人データ及び知的財産を保護する", "データインプット対策で個人データと知的財産を保護"),
    ("list", "GAI", 17, "AI開発者はデータ前処理・学習時にどのような保護措置を実施するか。",
     "データ管理・制限機能の導入検討を行う等、適切な保護措置を実施する", "データ管理・制限機能の導入検討等"),
    ("list", "GAI", 19, "AI提供者はバイアスの発生をどうモニタリングするか。",
     "AIモデルの入出力及び判断根拠を定期的に評価し、バイアスの発生をモニタリング", "入出力及び判断根拠を定期的に評価"),
    ("list", "GAI", 20, "AI提供者は個人情報の不適切入力についてどうするか。", "AIシステム・サービスへの個人情報の不適切入力について注意喚起する", "注意喚起する"),
    ("list", "HON", 3, "AIの活用が期待されている社会課題として何が挙げられているか。",
     "少子高齢化に伴う労働力の低下等の社会課題の解決手段として、AI の活用が期待されていること", "少子高齢化に伴う労働力の低下"),
    ("list", "HON", 3, "細かな行為義務を規定するルールベースの規制にはどんな問題があるとされるか。",
     "細かな行為義務を規定するルールベースの規制を行うと、イノベーションを阻害する可能性があること", "イノベーションを阻害する可能性"),
    ("list", "HON", 11, "基本理念の2つ目の社会は何か。", "② 多様な背景を持つ人々が多様な幸せを追求できる社会", "多様な背景を持つ人々が多様な幸せを追求できる社会"),
    ("list", "HON", 14, "選挙などの手続きに関わる場合、AIの出力はどう扱うべきか。",
     "社会に重大な影響を与える手続きに関連しうる場合においては、AI の出力について慎重に取り扱う", "慎重に取り扱う"),
    ("list", "HON", 17, "AIシステム・サービスの脆弱性を完全に排除できないのはなぜか。",
     "推論対象データに微細な情報を混入させることで関連するステークホルダーの意図しない判断が行われる可能性を踏まえて", "推論対象データへの微細な情報の混入"),
    ("list", "HON", 25, "AIガバナンスの構築で最初に実施するのは何か。",
     "対象となるAI システム・サービスに関連する「環境・リスク分析」を実施する", "環境・リスク分析"),
    ("list", "HON", 25, "AIマネジメントシステムが有効に機能しているかはどう確認するか。",
     "AI マネジメントシステムが有効に機能しているかを継続的にモニタリングし、「評価」及び継続的改善を実施する", "継続的なモニタリング、評価と継続的改善"),
    ("list", "HON", 34, "AI提供者がAI利用者に注意喚起する学習上の問題は何か。",
     "コンテキスト内学習による不適切なAI モデルの学習に対する注意喚起", "コンテキスト内学習による不適切な学習"),
    ("list", "HON", 31, "高度なAIシステムの指針VIIでは何を開発し導入するか。",
     "信頼できるコンテンツ認証及び来歴のメカニズムを開発し、導入する", "コンテンツ認証及び来歴のメカニズム"),
]


def match_text(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split()).replace("|", "")


def page_texts() -> dict[str, list[str]]:
    import pymupdf

    out = {}
    for key, name in FILES.items():
        with pymupdf.open(REALDATA / name) as doc:
            out[key] = [match_text(p.get_text()) for p in doc]
    return out


def doc_ids() -> dict[str, str]:
    return {key: hashlib.sha256((REALDATA / name).read_bytes()).hexdigest()[:16] for key, name in FILES.items()}


def copies_of(quote: str, key: str, page: int, texts: dict[str, list[str]], ids: dict[str, str]) -> list[dict]:
    """Every other page of the five PDFs where the exact quote is printed."""
    needle = match_text(quote)
    if len(needle) < MIN_COPY_CHARS:
        return []
    return [{"doc_id": ids[k], "source": FILES[k], "page": n}
            for k, pages in texts.items() for n, text in enumerate(pages, start=1)
            if needle in text and (k, n) != (key, page)]


def build_items() -> list[dict]:
    texts = page_texts()
    ids = doc_ids()
    items, problems = [], []
    for item_id, tags, created, (kind, key, page, question, quote, answer) in numbered_questions():
        if match_text(quote) not in texts[key][page - 1]:
            problems.append(f"{item_id}: quote not on {FILES[key]} p{page}: {quote[:40]!r}")
        evidence = {"record_id": None, "page": page, "bbox": None, "quote": quote}
        copies = copies_of(quote, key, page, texts, ids)
        if copies:
            evidence["copies"] = copies
        items.append({
            "schema": "gold/v1", "id": item_id, "question": question, "answer": answer,
            "doc_id": ids[key], "source": FILES[key], "evidence": [evidence],
            "tags": tags, "created_by": created[0], "created_at": created[1],
        })
    if problems:
        raise SystemExit("\n".join(problems))
    return items


def numbered_questions():
    """(id, tags, (created_by, created_at), question row): the first set's halves by id parity, then the
    second tuning set (scripts/gold_ja_realdata_tune2.py), every row of it "tune" and "tune2", then the
    second hold-out set (scripts/gold_ja_realdata_holdout2.py), every row of it "holdout" and "holdout2", then
    the third hold-out set (scripts/gold_ja_realdata_holdout3.py), every row of it "holdout" and "holdout3", then
    the fourth hold-out set (scripts/gold_ja_realdata_holdout4.py), every row of it "holdout" and "holdout4", then
    the fifth hold-out set (scripts/gold_ja_realdata_holdout5.py), every row of it "holdout" and "holdout5", then
    the sixth hold-out set (scripts/gold_ja_realdata_holdout6.py), every row of it "holdout" and "holdout6", then
    the seventh hold-out set (scripts/gold_ja_realdata_holdout7.py), every row of it "holdout" and "holdout7", then
    the eighth hold-out set (scripts/gold_ja_realdata_holdout8.py), every row of it "holdout" and "holdout8", then
    the ninth hold-out set (scripts/gold_ja_realdata_holdout9.py), every row of it "holdout" and "holdout9"."""
    from gold_ja_realdata_holdout2 import QUESTIONS_HOLDOUT2
    from gold_ja_realdata_holdout3 import QUESTIONS_HOLDOUT3
    from gold_ja_realdata_holdout4 import QUESTIONS_HOLDOUT4
    from gold_ja_realdata_holdout5 import QUESTIONS_HOLDOUT5
    from gold_ja_realdata_holdout6 import QUESTIONS_HOLDOUT6
    from gold_ja_realdata_holdout7 import QUESTIONS_HOLDOUT7
    from gold_ja_realdata_holdout8 import QUESTIONS_HOLDOUT8
    from gold_ja_realdata_holdout9 import QUESTIONS_HOLDOUT9
    from gold_ja_realdata_holdout10 import QUESTIONS_HOLDOUT10
    from gold_ja_realdata_tune2 import QUESTIONS_TUNE2

    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS:
        counters[row[0]] += 1
        number = counters[row[0]]
        yield (f"rj-{row[0]}-{number:02d}", [row[0], "tune" if number % 2 else "holdout"],
               ("issue-11 (hand-written from page text)", "2026-12-01T23:30:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_TUNE2:
        counters[row[0]] += 1
        yield (f"rj2-{row[0]}-{counters[row[0]]:02d}", [row[0], "tune", "tune2"],
               ("issue-11 stop 27 fresh tuning set (hand-written from page text)", "2026-12-03T15:00:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT2:
        counters[row[0]] += 1
        yield (f"rj3-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout2"],
               ("issue-11 stop 28 fresh hold-out (hand-written from page text)", "2026-12-03T18:00:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT3:
        counters[row[0]] += 1
        yield (f"rj4-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout3"],
               ("issue-11 third fresh hold-out (hand-written from page text)", "2026-12-04T17:00:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT4:
        counters[row[0]] += 1
        yield (f"rj5-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout4"],
               ("issue-11 fourth fresh hold-out (hand-written from page text)", "2026-12-04T21:00:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT5:
        counters[row[0]] += 1
        yield (f"rj6-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout5"],
               ("issue-11 fifth fresh hold-out (hand-written from page text)", "2026-12-06T23:00:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT6:
        counters[row[0]] += 1
        yield (f"rj7-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout6"],
               ("issue-11 sixth fresh hold-out (hand-written from page text)", "2026-12-07T02:30:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT7:
        counters[row[0]] += 1
        yield (f"rj8-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout7"],
               ("issue-11 seventh fresh hold-out (hand-written from page text)", "2026-12-07T07:30:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT8:
        counters[row[0]] += 1
        yield (f"rj9-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout8"],
               ("issue-11 eighth fresh hold-out (hand-written from page text)", "2026-12-07T12:30:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT9:
        counters[row[0]] += 1
        yield (f"rj10-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout9"],
               ("issue-11 ninth fresh hold-out (hand-written from page text)", "2026-12-07T16:30:00Z"), row)
    counters = {k: 0 for k in KINDS}
    for row in QUESTIONS_HOLDOUT10:
        counters[row[0]] += 1
        yield (f"rj11-{row[0]}-{counters[row[0]]:02d}", [row[0], "holdout", "holdout10"],
               ("issue-11 tenth fresh hold-out (hand-written from page text)", "2026-12-07T17:00:00Z"), row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the quotes, write nothing")
    args = parser.parse_args()
    items = build_items()
    counts = {k: sum(i["tags"][0] == k for i in items) for k in KINDS}
    halves = {h: sum(i["tags"][1] == h for i in items) for h in ("tune", "holdout")}
    copied = sum("copies" in i["evidence"][0] for i in items)
    print(f"{len(items)} questions; per kind {counts}; halves {halves}; {copied} with copies", file=sys.stderr)
    if not args.check:
        OUT.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
        print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
