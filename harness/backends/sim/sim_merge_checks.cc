// SPDX-License-Identifier: MIT
// sim_merge_checks.cc: an LLVM pass plugin for the checked copies clang builds of the shipped
// kernels (sim_clang.c). It runs before the access hooks (sim_hooks.h) are inlined and
// versions each basic block whose hooked accesses share an address up to a constant offset
// (a tiled kernel's unrolled inner loop: As[ty][0..15], Bs[0..15][tx]): one span check a group
// (__sim_span_ok) chooses between a copy of the block without those hooks and the block as it
// was. A span wholly inside one region (shared memory, the lane's own stack, one of the
// launch's ranges) means every access in it would pass its own check, which depends on nothing
// the block can change; anything else takes the original block, whose checks fault exactly as
// before, in the same order. A checked launch pays one check a group instead of one an access,
// and none a loop iteration where the group's address does not move in the loop. The hooks
// of accesses through a kernel's pointer argument are given the launch's ranges first.
#include "sim_abi.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace
{

// One hooked access: the hook's call, and its address as base + sum(index * scale) + offset.
struct Access {
    CallInst *call;
    Value *pointer; // the address as the hook and the access take it
    Value *base;
    MapVector<Value *, APInt> indices;
    int64_t offset;
    unsigned size;
    bool aligned; // the hook faults a misaligned address (__tsan_readN, not unaligned_readN)
};

// Accesses of one address expression, size and alignment class, in block order.
struct Group {
    SmallVector<Access, 16> members;
    int64_t lo, hi;          // the span of offsets the members touch, [lo, hi)
    Value *origin = nullptr; // base + sum(index * scale), computed where the region starts
};

// The size a plain hook checks and whether it checks alignment; 0 for any other call.
unsigned hookSize(const CallInst &call, bool &aligned)
{
    const Function *callee = call.getCalledFunction();
    if (!callee || !callee->getName().startswith("__tsan_"))
        return 0;
    StringRef rest = callee->getName().drop_front(7);
    aligned = !rest.consume_front("unaligned_");
    if (!rest.consume_front("read") && !rest.consume_front("write"))
        return 0; // volatile accesses are sync points, ranges have no constant size
    unsigned size = 0;
    if (rest.getAsInteger(10, size) || (size != 1 && size != 2 && size != 4 && size != 8 && size != 16))
        return 0;
    return size;
}

// An index `i + c` (a 64-bit add, exact in the address's arithmetic modulo 2^64) is the index
// i and c elements more: unrolled loops address p[i + 132], p[i + 164], ... from one i.
void foldConstants(MapVector<Value *, APInt> &indices, APInt &offset)
{
    MapVector<Value *, APInt> folded;
    for (auto &index : indices) {
        Value *v = index.first;
        while (auto *add = dyn_cast<BinaryOperator>(v)) {
            auto *c = dyn_cast<ConstantInt>(add->getOperand(1));
            if (add->getOpcode() != Instruction::Add || !c || !add->getType()->isIntegerTy(64))
                break;
            offset += c->getValue() * index.second;
            v = add->getOperand(0);
        }
        auto slot = folded.insert({v, APInt(64, 0)}).first;
        slot->second += index.second;
    }
    indices = std::move(folded);
}

bool describe(CallInst &call, const DataLayout &layout, Access &out)
{
    out.call = &call;
    out.size = hookSize(call, out.aligned);
    if (!out.size)
        return false;
    // Through every GEP to the root, so that p[k] and (p + i)[k] name one expression.
    Value *ptr = call.getArgOperand(0)->stripPointerCasts();
    out.pointer = ptr;
    APInt offset(64, 0);
    while (auto *gep = dyn_cast<GEPOperator>(ptr)) {
        if (layout.getIndexTypeSizeInBits(gep->getType()) != 64 || !gep->collectOffset(layout, 64, out.indices, offset))
            return false;
        ptr = gep->getPointerOperand()->stripPointerCasts();
    }
    foldConstants(out.indices, offset);
    if (!offset.isSignedIntN(48))
        return false;
    out.base = ptr;
    out.offset = offset.getSExtValue();
    return true;
}

// Whether the values a span is computed from exist where the region starts: from another
// block, an argument, a constant, a phi, or an instruction before the start.
bool availableAt(const Value *v, const Instruction *start)
{
    const auto *inst = dyn_cast<Instruction>(v);
    return !inst || inst->getParent() != start->getParent() || isa<PHINode>(inst) || inst->comesBefore(start);
}

bool availableAt(const Access &a, const Instruction *start)
{
    if (!availableAt(a.base, start))
        return false;
    for (auto &index : a.indices)
        if (!availableAt(index.first, start))
            return false;
    return true;
}

// Same address expression, size and alignment class; aligned members also agree on their
// offset modulo the size, so that the span's first address is aligned exactly when each is.
bool sameGroup(const Access &a, const Access &b)
{
    if (a.base != b.base || a.size != b.size || a.aligned != b.aligned || a.indices.size() != b.indices.size())
        return false;
    if (a.aligned && (a.offset - b.offset) % (int64_t)a.size != 0)
        return false;
    for (auto &index : a.indices) {
        auto other = b.indices.find(index.first);
        if (other == b.indices.end() || other->second != index.second)
            return false;
    }
    return true;
}

SmallVector<Group, 4> groupsOf(BasicBlock &bb, const DataLayout &layout)
{
    SmallVector<Group, 4> groups;
    for (Instruction &inst : bb) {
        auto *call = dyn_cast<CallInst>(&inst);
        Access access;
        if (!call || !describe(*call, layout, access))
            continue;
        Group *group = nullptr;
        for (Group &g : groups)
            if (sameGroup(g.members.front(), access))
                group = &g;
        if (!group) {
            groups.push_back(Group{{}, access.offset, access.offset + access.size});
            group = &groups.back();
        }
        group->lo = std::min(group->lo, access.offset);
        group->hi = std::max(group->hi, access.offset + (int64_t)access.size);
        group->members.push_back(std::move(access));
    }
    erase_if(groups, [](const Group &g) { return g.members.size() < 2; });
    // The region starts at the first grouped hook; a group whose expression is computed only
    // after that start is dropped, which moves the start down, until every group can be checked.
    for (bool dropped = true; dropped && !groups.empty();) {
        Instruction *start = groups.front().members.front().call;
        for (const Group &g : groups)
            if (g.members.front().call->comesBefore(start))
                start = g.members.front().call;
        size_t before = groups.size();
        erase_if(groups, [&](const Group &g) { return !availableAt(g.members.front(), start); });
        dropped = groups.size() != before;
    }
    return groups;
}

// The region to version: from the first grouped hook to the last. Refused where a copy would
// not be the same code: a second alloca, or instructions that cannot be duplicated.
bool regionOf(BasicBlock &bb, ArrayRef<Group> groups, Instruction *&first, Instruction *&last)
{
    SmallPtrSet<Instruction *, 32> grouped;
    for (const Group &g : groups)
        for (const Access &a : g.members)
            grouped.insert(a.call);
    first = last = nullptr;
    for (Instruction &inst : bb) {
        if (grouped.count(&inst)) {
            first = first ? first : &inst;
            last = &inst;
        }
    }
    for (Instruction *inst = first; inst != last->getNextNode(); inst = inst->getNextNode()) {
        auto *call = dyn_cast<CallBase>(inst);
        if (isa<AllocaInst>(inst) || (call && (call->cannotDuplicate() || call->isConvergent())))
            return false;
    }
    return true;
}

// A function's loops, kept up to date as blocks are split and copied, and where each loop's
// preheader ends (recorded before any change: the instruction stays last in whatever block
// the splits leave it, and that block still dominates the loop).
struct Loops {
    LoopInfo &info;
    DenseMap<const Loop *, Instruction *> preheaderEnd;
};

// Where a group's span check goes: out of every loop around the block in which its address
// does not move, to that loop's preheader, so that a tile loop checks its rows once, not a
// tile; else at the block's head.
Instruction *checkPoint(const Access &a, BasicBlock &head, Loops &loops)
{
    Instruction *at = head.getTerminator();
    for (const Loop *l = loops.info.getLoopFor(&head); l; l = l->getParentLoop()) {
        auto end = loops.preheaderEnd.find(l);
        bool moves = !l->isLoopInvariant(a.base) ||
                     any_of(a.indices, [&](auto &index) { return !l->isLoopInvariant(index.first); });
        if (end == loops.preheaderEnd.end() || moves)
            break;
        at = end->second;
    }
    return at;
}

// True at the head when every group's span passes one check (__sim_span_ok).
Value *spansPass(BasicBlock &head, Function &spanOk, MutableArrayRef<Group> groups, Loops &loops)
{
    IRBuilder<> at(head.getTerminator());
    Type *word = at.getInt64Ty();
    Value *all = nullptr;
    for (Group &g : groups) {
        const Access &a = g.members.front();
        IRBuilder<> here(checkPoint(a, head, loops));
        Value *scaled = ConstantInt::get(word, 0);
        for (auto &index : a.indices) {
            Value *term =
                here.CreateMul(here.CreateSExtOrTrunc(index.first, word), ConstantInt::get(word, index.second));
            scaled = here.CreateAdd(scaled, term);
        }
        g.origin = here.CreateGEP(here.getInt8Ty(), here.CreatePointerCast(a.base, here.getInt8PtrTy()), scaled);
        Value *address = here.CreateAdd(here.CreatePtrToInt(g.origin, word), ConstantInt::get(word, g.lo));
        Value *args[] = {address, ConstantInt::get(word, g.hi - g.lo), ConstantInt::get(word, a.aligned ? a.size : 1)};
        Value *ok = here.CreateICmpNE(here.CreateCall(&spanOk, args), ConstantInt::get(spanOk.getReturnType(), 0));
        all = all ? at.CreateAnd(all, ok) : ok;
    }
    return at.CreateFreeze(all); // a base that is poison on a path no access takes decides nothing
}

// The load or store a hook checks: the next access to its address before any other call.
Instruction *accessOf(const Access &a)
{
    for (Instruction *inst = a.call->getNextNode(); inst && !isa<CallBase>(inst); inst = inst->getNextNode()) {
        Value *ptr = nullptr;
        if (auto *load = dyn_cast<LoadInst>(inst))
            ptr = load->getPointerOperand();
        else if (auto *store = dyn_cast<StoreInst>(inst))
            ptr = store->getPointerOperand();
        if (ptr && ptr->stripPointerCasts() == a.pointer)
            return inst;
    }
    return nullptr;
}

// In the merged copy each access addresses its group's origin plus a constant, which the code
// generator folds into the instruction; the original addresses are as many loop-invariant
// pointers, spilled and reloaded once they outnumber the registers (a 16-wide tile's 32).
void readdress(ArrayRef<Group> groups, ValueToValueMapTy &copies)
{
    for (const Group &g : groups)
        for (const Access &a : g.members) {
            Instruction *access = accessOf(a);
            if (!access)
                continue;
            auto *copy = cast<Instruction>(copies[access]);
            unsigned operand =
                isa<LoadInst>(copy) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex();
            IRBuilder<> at(copy);
            Value *ptr = at.CreateGEP(at.getInt8Ty(), g.origin, at.getInt64(a.offset));
            copy->setOperand(operand, at.CreatePointerCast(ptr, copy->getOperand(operand)->getType()));
        }
}

// Values the region defines and later code uses: a phi of both copies in the tail.
void joinCopies(BasicBlock &body, BasicBlock &fast, BasicBlock &tail, ValueToValueMapTy &copies)
{
    for (Instruction &inst : body) {
        if (inst.getType()->isVoidTy())
            continue;
        SmallVector<Use *, 4> outside;
        for (Use &use : inst.uses()) {
            BasicBlock *where = cast<Instruction>(use.getUser())->getParent();
            if (where != &body && where != &fast)
                outside.push_back(&use);
        }
        SmallVector<DbgVariableIntrinsic *, 2> debugUsers;
        findDbgUsers(debugUsers, &inst);
        erase_if(debugUsers,
                 [&](DbgVariableIntrinsic *d) { return d->getParent() == &body || d->getParent() == &fast; });
        if (outside.empty() && debugUsers.empty())
            continue;
        PHINode *join = PHINode::Create(inst.getType(), 2, "", &tail.front());
        join->addIncoming(&inst, &body);
        join->addIncoming(copies[&inst], &fast);
        for (Use *use : outside)
            use->set(join);
        for (DbgVariableIntrinsic *d : debugUsers)
            d->replaceVariableLocationOp(&inst, join);
    }
}

struct Versioned {
    unsigned checks, spans; // how many checks became how many span checks
    BasicBlock *tail;       // the code after the region, where later groups may start one
};

Versioned version(BasicBlock &bb, Function &spanOk, const DataLayout &layout, Loops &loops)
{
    SmallVector<Group, 4> groups = groupsOf(bb, layout);
    Instruction *first, *last;
    if (groups.empty() || !regionOf(bb, groups, first, last))
        return {0, 0, nullptr};
    BasicBlock *body = SplitBlock(&bb, first, static_cast<DominatorTree *>(nullptr), &loops.info);
    BasicBlock *tail = SplitBlock(body, last->getNextNode(), static_cast<DominatorTree *>(nullptr), &loops.info);
    Value *pass = spansPass(bb, spanOk, groups, loops);
    ValueToValueMapTy copies;
    BasicBlock *fast = CloneBasicBlock(body, copies, ".merged", bb.getParent());
    if (Loop *l = loops.info.getLoopFor(body))
        l->addBasicBlockToLoop(fast, loops.info);
    for (Instruction &inst : *fast)
        RemapInstruction(&inst, copies, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
    readdress(groups, copies);
    unsigned merged = 0;
    for (const Group &g : groups)
        for (const Access &a : g.members) {
            cast<Instruction>(copies[a.call])->eraseFromParent();
            merged++;
        }
    bb.getTerminator()->eraseFromParent();
    BranchInst::Create(fast, body, pass, &bb);
    joinCopies(*body, *fast, *tail, copies);
    return {merged, (unsigned)groups.size(), tail};
}

// Hooks of addresses derived from a kernel's pointer argument, global memory nearly always, go
// to __sim_check_argument: the same check with the launch's ranges tested first, which a
// check of shared memory and the stack need not wait for.
void argumentsFirst(Function &f, Function &checkArgument, const DataLayout &layout)
{
    SmallVector<Access, 16> accesses;
    for (Instruction &inst : instructions(f)) {
        auto *call = dyn_cast<CallInst>(&inst);
        Access access;
        if (call && describe(*call, layout, access) && isa<Argument>(access.base))
            accesses.push_back(access);
    }
    for (Access &a : accesses) {
        bool write = a.call->getCalledFunction()->getName().contains("write");
        int flags = (write ? SIM_ACC_WRITE : 0) | (a.aligned ? SIM_ACC_ALIGNED : 0);
        IRBuilder<> at(a.call);
        Value *args[] = {at.CreatePointerCast(a.call->getArgOperand(0), at.getInt8PtrTy()), at.getInt64(a.size),
                         at.getInt32(flags)};
        at.CreateCall(&checkArgument, args)->setDebugLoc(a.call->getDebugLoc());
        a.call->eraseFromParent();
    }
}

// The module's tally, for the report's account of the build (sim_load.c reads it by name).
void publish(Module &m, unsigned checks, unsigned spans)
{
    Type *word = Type::getInt32Ty(m.getContext());
    ArrayType *pair = ArrayType::get(word, 2);
    Constant *value = ConstantArray::get(pair, {ConstantInt::get(word, checks), ConstantInt::get(word, spans)});
    new GlobalVariable(m, pair, true, GlobalValue::ExternalLinkage, value, "sim_kernel_merged_checks");
}

struct SimMergeChecks : PassInfoMixin<SimMergeChecks> {
    PreservedAnalyses run(Module &m, ModuleAnalysisManager &analyses)
    {
        FunctionAnalysisManager &perFunction = analyses.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
        Function *spanOk = m.getFunction("__sim_span_ok"), *checkArgument = m.getFunction("__sim_check_argument");
        if (!spanOk || !checkArgument || m.getGlobalVariable("sim_kernel_merged_checks"))
            return PreservedAnalyses::all();
        unsigned checks = 0, spans = 0;
        for (Function &f : m) {
            if (f.isDeclaration() || &f == spanOk || &f == checkArgument)
                continue;
            Loops loops{perFunction.getResult<LoopAnalysis>(f), DenseMap<const Loop *, Instruction *>()};
            for (const Loop *l : loops.info.getLoopsInPreorder())
                if (BasicBlock *preheader = l->getLoopPreheader())
                    loops.preheaderEnd[l] = preheader->getTerminator();
            SmallVector<BasicBlock *, 16> blocks;
            for (BasicBlock &bb : f)
                blocks.push_back(&bb);
            while (!blocks.empty()) {
                Versioned done = version(*blocks.pop_back_val(), *spanOk, m.getDataLayout(), loops);
                checks += done.checks;
                spans += done.spans;
                if (done.tail)
                    blocks.push_back(done.tail);
            }
            argumentsFirst(f, *checkArgument, m.getDataLayout());
        }
        publish(m, checks, spans);
        return PreservedAnalyses::none();
    }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "sim-merge-checks", "1", [](PassBuilder &builder) {
                // Before inlining, while each access is still a call to its hook.
                builder.registerPipelineStartEPCallback(
                    [](ModulePassManager &passes, OptimizationLevel) { passes.addPass(SimMergeChecks()); });
                builder.registerPipelineParsingCallback(
                    [](StringRef name, ModulePassManager &passes, ArrayRef<PassBuilder::PipelineElement>) {
                        if (name != "sim-merge-checks")
                            return false;
                        passes.addPass(SimMergeChecks());
                        return true;
                    });
            }};
}
