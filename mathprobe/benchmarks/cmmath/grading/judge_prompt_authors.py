"""The authors' GPT-4 judge prompt for CMMaTH, reproduced exactly (a published protocol text).

Source: github zzli2022/CMMaTH, `prompt/judge_prompt.py`: `cross_lingual_judge_prompt` as
Python evaluates that module (it assigns the name twice; the second text, with three worked
examples in the Cross-Lingual Judge-of-Chain format, is the one that takes effect) and
`cross_lingual_templete`. Their judging scripts send `cross_lingual_judge_prompt` followed by
the template filled with the question, the reference answer and the model response, as one
prompt. GPT-4's judgments in the authors' GradeGPT data follow exactly this output format
("The relevant paragraph in the Model Response that provides the answer is ...").

The literals below are the authors' as written (escapes included), so their values are the
texts the authors' code sends. This text is not in the data directory's
prompts_published.json (which holds the paper's tables), hence here.
"""

JUDGE_PROMPT = """
You are an answer evaluation assistant. Based on the following questions and reference answers, determine if the model's output is the same answer. When making the determination, please provide the analysis process in the following format.
Note, for multiple-choice questions, it is only correct if the output includes all the corresponding options. (For example: If the reference answer is: A\nC\n, and the model response is: C\n, the answer consistency is: No)
Note, if the model response does not specify a particular option, and its correctness cannot be determined, the answer consistency should be: No.

Chinese Problem: 如图所示，$$AD$$是$$\\bigtriangleup ABC$$的中线，点$$E$$在$$AC$$上，$$BE$$交$$AD$$于点$$F$$．当$$\\frac{AF}{FD}=\\frac{1}{2}$$时，$$\\frac{AE}{AC}= \\underline{}$$ 
Reference Answer: $$\\frac{1}{5}$$
Model Response: 首先，我们需要找到中线AD，然后找到点E在AC上的位置。\n\n找到中线AD，可以通过勾股定理求解，AD^2 = AD \\* AC^2。\n\n设AD = x，AC = y，则有 x^2 = x \\* y^2。\n\n解这个方程，我们得到 y = √x。\n\n现在我们知道点E在AC上，所以E的横坐标为y，纵坐标为x。\n\n接下来，我们需要找到点F在BD上的位置。\n\n由于F点在BD上，我们可以设F点在BD的一半，即F = (x + y) / 2。\n\n现在我们可以计算AF和FD的长度。\n\nAF = x - F\n\nFD = FD - F\n\n将已知的x和y代入公式，得到：\n\nAF = x - (x + y) / 2\n\nFD = (x + y) / 2 - (x + y) / 2\n\n简化得到：\n\nAF = x - x\n\nFD = x - x\n\n这意味着AF = FD。\n\n现在我们可以求解题目中的条件：\n\nAE / AC = 1 / 2\n\n将已知的AF和FD代入公式，得到：\n\nAE / AC = (x - x) / (√x \\* y)\n\n化简得到：\n\nAE / AC = 1 / 2\n\n所以，答案为AE / AC = 1 / 2。
Judge Result: The relevant paragraph in the Model Response that provides the answer is 
所以，答案为AE / AC = 1 / 2
Understand the question in Chinese. The Chinese model response means:
Therefore, the answer is AE / AC = 1 / 2.
Next, let’s analyze whether the correct answer has been given.
The reference answer $$\\frac{1}{5}$$ is a numerical answer, and the output given in the model response is 1/2. The consistency of the answers is: No.

Chinese Problem: 下列图形中，对称轴的条数最少的图形是 $$\\underline{}$$ （只填序号）．\n ．. 
Reference Answer: ②
Model Response: 首先观察图形1，它是一个椭圆形，有一个对称轴，即通过椭圆的长轴的直线。 <STEP1>\n然后观察图形2，它是由两个三角形组成的图形，有两个对称轴，即通过每个三角形的高的直线。 <STEP2>\n接着观察图形3，它是一个正方形对角线相交形成的图形，有四个对称轴，即每条对角线和每条边的中垂线。 <STEP3>\n最后观察图形4，它是一个由四个半圆组成的图形，有两个对称轴，即通过每对相对的半圆中心的直线。 <STEP4>\n比较所有图形的对称轴数量，图形1的对称轴数量最少，只有一个。 <STEP5>\n所以最终的答案为图形1的序号，即1。 <STEP6>.
Judge Result: The relevant paragraph in the Model Response that provides the answer is 
所以最终的答案为图形1的序号，即1。
Understand the question in Chinese. The Chinese model response means:
Therefore, the final answer is the number of Figure 1, which is 1.
Next, let’s analyze whether the correct answer has been given.
The reference answer ② is a option-based answer, and the output given in the model response is 1. The consistency of the answers is: No.

Chinese Problem: 甲、乙两名同学在一次用频率去估计概率的实验中，绘出了某一结果出现的频率的折线图，则符合这一结果的实验可能是（   ）\n\nA.掷一枚正六面体的骰子，出现1点的概率\nB.抛一枚硬币，出现正面的概率\nC.任意写一个整数，它能被2整除的概率\nD.从一个装有2个白球和1个红球的袋子中任取一球，取到红球的概率\n
Reference Answer: D
Model Response: 求解步骤:\n首先，我们需要理解频率与概率的关系。频率是指在一系列重复实验中，某个结果出现的次数与总实验次数的比值。当实验次数足够多时，频率可以作为概率的估计。 <STEP1>\n\n接着，我们观察折线图。图中显示的频率在20%到40%之间波动。 <STEP2>\n\n现在我们分析每个选项:\nA.掷一枚正六面体的骰子，出现1点的概率是1/6，约等于16.67%，这个值低于图中的频率波动范围。 <STEP3>\nB.抛一枚硬币，出现正面的概率是1/2，即50%，这个值高于图中的频率波动范围。 <STEP4>\nC.任意写一个整数，它能被2整除的概率是1/2，即50%，这个值同样高于图中的频率波动范围。 <STEP5>\nD.从一个装有2个白球和1个红球的袋子中任取一球，取到红球的概率是1/3，约等于33.33%，这个值在图中的频率波动范围内。 <STEP6>\n\n综上所述，只有选项D的概率与图中的频率波动范围相匹配。 <STEP7>\n\n所以最终的答案为B. <STEP8>
Judge Result: The relevant paragraph in the Model Response that provides the answer is 
所以最终的答案为B.
Understand the question in Chinese. The Chinese model response means:
Therefore, the final answer is B.
Next, let’s analyze whether the correct answer has been given.
The reference answer D is a option-based answer, and the output given in the model response is B. The consistency of the answers is: No.
"""

JUDGE_TEMPLATE = """
Question: {problem}
Reference Answer: {answer}
Model Response: {model_response}
Judgment Result: 
"""
